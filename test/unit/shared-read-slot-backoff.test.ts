// lib/store/shared-read.ts: a caller that asks for a reading taken since `notBefore` (a snapshot's
// slot) respects the fleet's back-off after a failed refresh, as every other caller does: it does not
// read the upstream again after the lease holder it waited for failed (directly, or through a request's
// read it joined), nor while a failure found in the entry is backing off, and it never writes a failure
// record counted from an entry older than the one it saw. A back-off that ends within
// BACKOFF_WAIT_MAX_MS (15 s) it waits out, then reads once under the lease (since 2026-11-28: until
// then the slot's part was skipped, and lost on a host that runs each slot once); a longer one it
// does not. Only requireFreshReading (an operator's or a test's "read it again") reads through a
// back-off. The clock is fixed; a wait for a back-off is a real timer of the time left, kept short here.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import {
  BACKOFF_WAIT_MAX_MS,
  endBackoffWaits,
  readThrough,
  requireFreshReading,
  type SharedKind,
} from '../../lib/store/shared-read';
import { createFaultyStore, createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;
const SLOT_START = NOW - 10_000;
const KEEP = 86_400_000;

function countingKind(key: string, read: () => Promise<number>) {
  let reads = 0;
  const kind: SharedKind<number> = {
    key,
    schema: z.number(),
    freshMs: 30_000,
    read: async () => {
      reads += 1;
      return { value: await read(), readAt: NOW };
    },
  };
  return { kind, reads: () => reads };
}

const failing = async (): Promise<number> => {
  throw new Error('upstream down');
};

/** A back-off ending past BACKOFF_WAIT_MAX_MS: the 5 s after a first failure, set 15 s ahead of NOW. */
const LONG = 15_000;
/** A back-off ending 200 ms after NOW: a first failure's 5 s, set 4.8 s before. */
const SHORT = -4_800;

/**
 * The fleet's store holding a reading from before the slot (40 s old, past its cadence), and another
 * instance that has taken the lease to refresh it; its upstream read fails when `fail` is called. The
 * holder's clock runs `holderAhead` ms ahead of NOW (within the skew allowed), so its failure's
 * back-off (5 s) ends that much later for the others.
 */
async function fleetWithHolder(
  key: string,
  holderAhead: number,
): Promise<{ store: LastGoodStore; fail: () => Promise<void> }> {
  const store = createMemoryLastGoodStore(() => NOW);
  await store.set(key, { value: 1, readAt: NOW - 40_000, failure: null }, KEEP);
  let reject: (error: Error) => void = () => {};
  const holder = createTestDeps({}, { now: () => NOW + holderAhead, lastGood: store });
  const held = readThrough(holder, {
    ...countingKind(key, failing).kind,
    read: () => new Promise((_, no) => (reject = no)),
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  return {
    store,
    fail: async () => {
      reject(new Error('upstream down'));
      expect((await held).failure).toMatchObject({ attempted: true });
    },
  };
}

it("does not read again for a slot after the holder's failure that the request it joined waited for, backing off past 15 s", async () => {
  const key = 'test:slot-joins-waiter';
  const { store, fail } = await fleetWithHolder(key, LONG);
  const { kind, reads } = countingKind(key, failing);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: store });
  const request = readThrough(deps, kind);
  const snapshot = readThrough(deps, kind, { notBefore: SLOT_START });
  await new Promise((resolve) => setTimeout(resolve, 150));
  await fail();
  expect((await request).failure).toMatchObject({ attempted: false, waited: true });
  const got = await snapshot;
  expect(reads()).toBe(0);
  // The old reading, with the holder's failure: the snapshot job skips it as a last good reading.
  expect(got).toMatchObject({ value: 1, readAt: NOW - 40_000, failure: { waited: true } });
  expect(await store.get(key)).toMatchObject({ failure: { count: 1 } });
});

it('does not read again for a slot when the lease holder it waited for failed, backing off past 15 s', async () => {
  const key = 'test:slot-waits-holder';
  const { store, fail } = await fleetWithHolder(key, LONG);
  const before = await store.get(key);
  const { kind, reads } = countingKind(key, failing);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: store });
  const snapshot = readThrough(deps, kind, { notBefore: SLOT_START });
  await new Promise((resolve) => setTimeout(resolve, 150));
  await fail();
  const written = await store.get(key);
  expect(written).toMatchObject({ value: 1, readAt: NOW - 40_000, failure: { count: 1 } });
  expect(written).not.toEqual(before);
  const got = await snapshot;
  expect(reads()).toBe(0);
  expect(got).toMatchObject({
    value: 1,
    readAt: NOW - 40_000,
    readNow: false,
    failure: { attempted: false, waited: true },
  });
  // The holder's failure record stands as it wrote it.
  expect(await store.get(key)).toEqual(written);
});

it("does not read for a slot while a failure found in the fleet's entry backs off past 15 s", async () => {
  const key = 'test:slot-found-backoff';
  const store = createMemoryLastGoodStore(() => NOW);
  const entry = {
    value: 1,
    readAt: NOW - 40_000,
    failure: { kind: 'timeout', retryAt: NOW + BACKOFF_WAIT_MAX_MS + 1, count: 3 },
  };
  await store.set(key, entry, KEEP);
  const { kind, reads } = countingKind(key, async () => 2);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: store });
  expect(await readThrough(deps, kind, { notBefore: SLOT_START })).toMatchObject({
    value: 1,
    readAt: NOW - 40_000,
    readNow: false,
    failure: { kind: 'timeout', attempted: false, waited: false },
  });
  expect(reads()).toBe(0);
  expect(await store.get(key)).toEqual(entry);
});

it("does not read for a slot while this instance's own failure backs off past 15 s, the store being down", async () => {
  const { kind, reads } = countingKind('test:slot-own-backoff', failing);
  // Three failed refreshes, each once the back-off before it ended: the third backs off for 20 s.
  let now = NOW - 17_000;
  const deps = createTestDeps({}, { now: () => now, lastGood: createFaultyStore('throw') });
  expect((await readThrough(deps, kind)).failure).toMatchObject({ attempted: true });
  now += 6_000;
  expect((await readThrough(deps, kind)).failure).toMatchObject({ attempted: true });
  now += 11_000;
  expect((await readThrough(deps, kind)).failure).toMatchObject({ attempted: true });
  expect(await readThrough(deps, kind, { notBefore: SLOT_START })).toMatchObject({
    value: null,
    readNow: false,
    failure: { attempted: false },
  });
  expect(reads()).toBe(3);
});

it("reads once for a slot after the short back-off of the holder's failure that the request it joined waited for", async () => {
  const key = 'test:slot-joins-waiter-short';
  const { store, fail } = await fleetWithHolder(key, SHORT);
  const { kind, reads } = countingKind(key, async () => 2);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: store });
  const request = readThrough(deps, kind);
  const snapshot = readThrough(deps, kind, { notBefore: SLOT_START });
  await new Promise((resolve) => setTimeout(resolve, 150));
  await fail();
  expect((await request).failure).toMatchObject({ attempted: false, waited: true });
  expect(reads()).toBe(0);
  expect(await snapshot).toMatchObject({ value: 2, readAt: NOW, readNow: true, failure: null });
  expect(reads()).toBe(1);
  expect(await store.get(key)).toMatchObject({ value: 2, readAt: NOW, failure: null });
});

it('reads once for a slot after the short back-off of the lease holder it waited for, counting a failure from it', async () => {
  const key = 'test:slot-waits-holder-short';
  const { store, fail } = await fleetWithHolder(key, SHORT);
  const { kind, reads } = countingKind(key, failing);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: store });
  const snapshot = readThrough(deps, kind, { notBefore: SLOT_START });
  await new Promise((resolve) => setTimeout(resolve, 150));
  await fail();
  expect(reads()).toBe(0);
  // The upstream still fails: its one try after the back-off is the second failure, and ends it.
  expect(await snapshot).toMatchObject({ value: 1, readAt: NOW - 40_000, failure: { attempted: true } });
  expect(reads()).toBe(1);
  expect(await store.get(key)).toMatchObject({ value: 1, failure: { count: 2, retryAt: NOW + 10_000 } });
});

it("reads once for a fleet's slot after a short back-off found in the entry: one instance reads, the others get its reading", async () => {
  const key = 'test:slot-found-short';
  const store = createMemoryLastGoodStore(() => NOW);
  const failure = { kind: 'timeout', retryAt: NOW + 200, count: 1 };
  await store.set(key, { value: 1, readAt: NOW - 40_000, failure }, KEEP);
  const { kind, reads } = countingKind(key, async () => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return 2;
  });
  const instances = Array.from({ length: 4 }, () => createTestDeps({}, { now: () => NOW, lastGood: store }));
  const slots = await Promise.all(
    instances.map((deps) => readThrough(deps, kind, { notBefore: SLOT_START })),
  );
  expect(reads()).toBe(1);
  for (const slot of slots) expect(slot).toMatchObject({ value: 2, readAt: NOW, failure: null });
});

it("reads once for a slot after its own failure's short back-off, the store being down", async () => {
  let fails = 1;
  const { kind, reads } = countingKind('test:slot-own-short', async () => {
    if (fails-- > 0) throw new Error('upstream down');
    return 2;
  });
  let now = NOW - 4_800;
  const deps = createTestDeps({}, { now: () => now, lastGood: createFaultyStore('throw') });
  expect((await readThrough(deps, kind)).failure).toMatchObject({ attempted: true });
  now = NOW;
  expect(await readThrough(deps, kind, { notBefore: SLOT_START })).toMatchObject({ value: 2, failure: null });
  expect(reads()).toBe(2);
});

it.each([
  ['this instance', false],
  ['another instance of the fleet', true],
])(
  "waits out a short back-off whose failed refresh kept a stand-in reading dated after the slot's start, then reads once: %s",
  async (_, another) => {
    const key = `test:slot-stand-in-${another ? 'fleet' : 'own'}`;
    // A request's refresh fails 4.8 s before the slot's read: the entry backs off until 200 ms after it.
    let now = NOW - 4_800;
    const store = createMemoryLastGoodStore(() => now);
    // The failed read brought an older reading (the explorer's old block), dated 1 s after the slot's
    // start: the refresh fails all the same, and the entry keeps it beside the failure (fallbackOf).
    const standIn = { value: 1, readAt: SLOT_START + 1_000 };
    let fails = 1;
    let reads = 0;
    const kind: SharedKind<number> = {
      key,
      schema: z.number(),
      freshMs: 30_000,
      read: async () => {
        reads += 1;
        if (fails-- > 0) throw Object.assign(new Error('upstream down'), { standIn });
        return { value: 2, readAt: now };
      },
      fallbackOf: (error) => (error as { standIn?: typeof standIn }).standIn ?? null,
    };
    const requester = createTestDeps({}, { now: () => now, lastGood: store });
    expect(await readThrough(requester, kind)).toMatchObject({
      ...standIn,
      failure: { attempted: true },
    });
    expect(await store.get(key)).toMatchObject({ ...standIn, failure: { count: 1, retryAt: NOW + 200 } });
    now = NOW;
    const deps = another ? createTestDeps({}, { now: () => now, lastGood: store }) : requester;
    // Its date is the stand-in's, not a read since the slot's start: the slot's read waits for the
    // back-off to end and reads again. Until later on 2026-11-28 it was served at once, with its
    // failure, and the snapshot skipped the slot as a last good reading.
    expect(await readThrough(deps, kind, { notBefore: SLOT_START })).toMatchObject({
      value: 2,
      readAt: NOW,
      readNow: true,
      failure: null,
    });
    expect(reads).toBe(2);
  },
);

it('does not wait for a back-off after its own attempt failed', async () => {
  const { kind, reads } = countingKind('test:slot-own-attempt', failing);
  const deps = createTestDeps({}, { now: () => NOW });
  expect(await readThrough(deps, kind, { notBefore: SLOT_START })).toMatchObject({
    failure: { attempted: true },
  });
  expect(reads()).toBe(1);
});

it('ends the wait for a back-off, reading nothing, once endBackoffWaits is called (a shutdown)', async () => {
  const key = 'test:slot-wait-ended';
  const store = createMemoryLastGoodStore(() => NOW);
  const failure = { kind: 'timeout', retryAt: NOW + 10_000, count: 2 };
  await store.set(key, { value: 1, readAt: NOW - 40_000, failure }, KEEP);
  const { kind, reads } = countingKind(key, async () => 2);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: store });
  const snapshot = readThrough(deps, kind, { notBefore: SLOT_START });
  await new Promise((resolve) => setTimeout(resolve, 50));
  endBackoffWaits(deps);
  expect(await snapshot).toMatchObject({ value: 1, failure: { kind: 'timeout', attempted: false } });
  expect(reads()).toBe(0);
  // Nor does a later slot read wait on this instance.
  expect(await readThrough(deps, kind, { notBefore: SLOT_START })).toMatchObject({ value: 1 });
  expect(reads()).toBe(0);
});

it('reads through a back-off when asked to by requireFreshReading', async () => {
  const key = 'test:forced-backoff';
  const store = createMemoryLastGoodStore(() => NOW);
  const failure = { kind: 'timeout', retryAt: NOW + 4_000, count: 2 };
  await store.set(key, { value: 1, readAt: NOW - 40_000, failure }, KEEP);
  const { kind, reads } = countingKind(key, async () => 2);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: store });
  requireFreshReading(deps, key);
  expect(await readThrough(deps, kind)).toMatchObject({
    value: 2,
    readAt: NOW,
    readNow: true,
    failure: null,
  });
  expect(reads()).toBe(1);
});

it("counts a failure read through the back-off from the holder's failure it saw, not the entry it found first", async () => {
  const key = 'test:forced-count';
  const { store, fail } = await fleetWithHolder(key, 0);
  const { kind, reads } = countingKind(key, failing);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: store });
  requireFreshReading(deps, key);
  const forced = readThrough(deps, kind);
  await new Promise((resolve) => setTimeout(resolve, 150));
  await fail();
  // It waits the holder out (2 s), then reads itself: two failed attempts, the second counted as such.
  expect(await forced).toMatchObject({ value: 1, failure: { attempted: true } });
  expect(reads()).toBe(1);
  expect(await store.get(key)).toMatchObject({ value: 1, readAt: NOW - 40_000, failure: { count: 2 } });
});
