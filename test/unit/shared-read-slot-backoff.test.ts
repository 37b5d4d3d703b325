// lib/store/shared-read.ts: a caller that asks for a reading taken since `notBefore` (a snapshot's
// slot) respects the fleet's back-off after a failed refresh, as every other caller does: it does not
// read the upstream again after the lease holder it waited for failed (directly, or through a request's
// read it joined), nor while a failure found in the entry is backing off, and it never writes a failure
// record counted from an entry older than the one it saw. Only requireFreshReading (an operator's or a
// test's "read it again") reads through a back-off.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { readThrough, requireFreshReading, type SharedKind } from '../../lib/store/shared-read';
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

/**
 * The fleet's store holding a reading from before the slot (40 s old, past its cadence), and another
 * instance that has taken the lease to refresh it; its upstream read fails when `fail` is called.
 */
async function fleetWithHolder(key: string): Promise<{ store: LastGoodStore; fail: () => Promise<void> }> {
  const store = createMemoryLastGoodStore(() => NOW);
  await store.set(key, { value: 1, readAt: NOW - 40_000, failure: null }, KEEP);
  let reject: (error: Error) => void = () => {};
  const holder = createTestDeps({}, { now: () => NOW, lastGood: store });
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

it("does not read again for a slot after the holder's failure that the request it joined waited for", async () => {
  const key = 'test:slot-joins-waiter';
  const { store, fail } = await fleetWithHolder(key);
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

it('does not read again for a slot when the lease holder it waited for failed', async () => {
  const key = 'test:slot-waits-holder';
  const { store, fail } = await fleetWithHolder(key);
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

it("does not read for a slot while a failure found in the fleet's entry is backing off", async () => {
  const key = 'test:slot-found-backoff';
  const store = createMemoryLastGoodStore(() => NOW);
  const entry = {
    value: 1,
    readAt: NOW - 40_000,
    failure: { kind: 'timeout', retryAt: NOW + 4_000, count: 2 },
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

it("does not read for a slot while this instance's own failure backs off, the store being down", async () => {
  const { kind, reads } = countingKind('test:slot-own-backoff', failing);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: createFaultyStore('throw') });
  expect((await readThrough(deps, kind)).failure).toMatchObject({ attempted: true });
  expect(await readThrough(deps, kind, { notBefore: SLOT_START })).toMatchObject({
    value: null,
    readNow: false,
    failure: { attempted: false },
  });
  expect(reads()).toBe(1);
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
  const { store, fail } = await fleetWithHolder(key);
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
