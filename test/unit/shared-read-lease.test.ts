// lib/store/shared-read.ts: the refresh lease. Its holder writes its reading and lets go of the lease
// whatever else of the store failed meanwhile; its read is given a deadline that leaves the write
// its budget inside the lease; and a holder whose lease ran out never frees the next holder's.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import {
  callSharedStore,
  readThrough,
  type SharedKind,
  type SharedReading,
} from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;
const KEY = 'test:lease';

/** Resolves once `done` holds, looking every few milliseconds (the test's own timeout bounds it). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

function kindOf(read: SharedKind<number>['read'], freshMs = 30_000, key = KEY): SharedKind<number> {
  return { key, schema: z.number(), freshMs, read };
}

/** A memory store on `now` that counts its `get` calls (`counted.gets`). */
function countingStore(now: () => number): { lastGood: LastGoodStore; counted: { gets: number } } {
  const store = createMemoryLastGoodStore(now);
  const counted = { gets: 0 };
  const lastGood: LastGoodStore = {
    ...store,
    get: (key) => {
      counted.gets += 1;
      return store.get(key);
    },
  };
  return { lastGood, counted };
}

it('writes its reading and lets go of the lease though another store call failed while it read', async () => {
  const { lastGood, counted } = countingStore(() => NOW);
  const deps = createTestDeps({}, { now: () => NOW, lastGood });
  const other = kindOf(async () => ({ value: 2, readAt: NOW }), 30_000, 'test:lease-other');
  let meanwhile: { reading: SharedReading<number>; gets: number } | undefined;
  const kind = kindOf(async () => {
    // A call of this instance's to the store beside the read fails meanwhile (a record the read waits
    // for; on a busy instance, another kind's read-through): the instance now skips the store.
    await callSharedStore(deps, () => Promise.reject(new Error('store down')));
    // So a read of another kind meanwhile goes upstream without it.
    const before = counted.gets;
    meanwhile = { reading: await readThrough(deps, other), gets: counted.gets - before };
    return { value: 1, readAt: NOW };
  });
  expect(await readThrough(deps, kind)).toMatchObject({ value: 1, readNow: true, failure: null });
  expect(meanwhile).toMatchObject({ reading: { value: 2, readNow: true }, gets: 0 });
  expect(await lastGood.get('test:lease-other')).toBeNull();
  // Until 2026-11-28 the holder skipped its write then: the fleet's entry stayed due and its lease
  // held until it ran out, with every other instance waiting on it.
  expect(await lastGood.get(KEY)).toEqual({ value: 1, readAt: NOW, failure: null });
  expect(await lastGood.get(`${KEY}:lease`)).toBeNull();
});

it("goes back to the store once the holder's write has answered, its back-off started afresh", async () => {
  let clock = NOW;
  const { lastGood, counted } = countingStore(() => clock);
  const fail = () => Promise.reject(new Error('store down'));
  /** An instance whose refresh of `key` (its lease taken) meets a failed store call of its own mid-read. */
  const holderAfterFailure = async (key: string) => {
    const deps = createTestDeps({}, { now: () => clock, lastGood });
    let failed = false;
    const kind = kindOf(
      async () => {
        failed = (await callSharedStore(deps, fail)) === undefined;
        return { value: 1, readAt: clock };
      },
      30_000,
      key,
    );
    await readThrough(deps, kind);
    expect(failed).toBe(true);
    expect(await lastGood.get(key)).toEqual({ value: 1, readAt: clock, failure: null });
    return deps;
  };
  const asksStore = async (deps: ReturnType<typeof createTestDeps>, key: string) => {
    const before = counted.gets;
    await readThrough(
      deps,
      kindOf(async () => ({ value: 2, readAt: clock }), 30_000, key),
    );
    return counted.gets > before;
  };

  // The store has just answered the holder's write: a read of another kind asks it and shares its
  // reading. Until later on 2026-11-28 the instance kept off the store for the 10 s the failed call
  // had set, reading every kind upstream by itself and sharing none of it.
  const first = await holderAfterFailure('test:lease-first');
  expect(await asksStore(first, 'test:lease-other')).toBe(true);
  expect(await lastGood.get('test:lease-other')).toEqual({ value: 2, readAt: NOW, failure: null });

  // The write also ended the run of failures: the next failed call sends the instance off the store
  // for 10 s, not the 20 s of a second failure in a row.
  const second = await holderAfterFailure('test:lease-second');
  expect(await callSharedStore(second, fail)).toBeUndefined();
  clock += 9_999;
  expect(await asksStore(second, 'test:lease-third')).toBe(false);
  clock += 2;
  expect(await asksStore(second, 'test:lease-fourth')).toBe(true);
});

it('stays off the store for its whole back-off when a call begun before the failure answers late', async () => {
  let clock = NOW;
  const { lastGood, counted } = countingStore(() => clock);
  const deps = createTestDeps({}, { now: () => clock, lastGood });
  let failedCalls = 0;
  const fail = () => {
    failedCalls += 1;
    return Promise.reject(new Error('store down'));
  };
  const asksStore = async (key: string) => {
    const before = counted.gets;
    await readThrough(
      deps,
      kindOf(async () => ({ value: 2, readAt: clock }), 30_000, key),
    );
    return counted.gets > before;
  };

  // A slow store: one call is in flight, another fails meanwhile (its timeout), and the first then
  // answers within its own budget.
  let answer: (value: string) => void = () => {};
  const slow = callSharedStore(deps, () => new Promise<string>((resolve) => (answer = resolve)));
  clock += 300;
  expect(await callSharedStore(deps, fail)).toBeUndefined();
  answer('late');
  expect(await slow).toBe('late');

  // The late answer was asked for before the failure, which is the newer word on the store: the
  // instance stays off it for the failure's 10 s. Until later on 2026-11-28 the answer ended that
  // at once (and reset the run of failures), so on a slow store the back-off never grew.
  clock += 9_999;
  expect(await asksStore('test:lease-slow-first')).toBe(false);
  clock += 2;
  // Back on the store, its next failure is the second in a row: 20 s off it, not 10.
  expect(await callSharedStore(deps, fail)).toBeUndefined();
  expect(failedCalls).toBe(2);
  clock += 19_999;
  expect(await asksStore('test:lease-slow-second')).toBe(false);
  clock += 2;
  expect(await asksStore('test:lease-slow-third')).toBe(true);
});

it.each([
  ['2500', 'redis', 6_000 - 1_000],
  ['400', 'redis', 1_800 - 400],
  ['2500', 'memory', 6_000 - 250],
  ['400', 'memory', 1_800 - 250],
] as const)(
  'gives the read (UPSTREAM_TIMEOUT_MS %s, a %s store) a deadline that leaves the write its budget inside the lease',
  async (timeoutMs, scope, readMs) => {
    // In-process the write takes no time: a quarter second is kept for the event loop, not a Redis
    // call's budget (until later on 2026-11-28 a Node host without Redis reserved that too).
    const store: LastGoodStore = { ...createMemoryLastGoodStore(() => NOW), scope };
    const deps = createTestDeps({ UPSTREAM_TIMEOUT_MS: timeoutMs }, { now: () => NOW, lastGood: store });
    let deadline: number | undefined;
    const kind = kindOf(async (_, deadlineAt) => {
      deadline = deadlineAt;
      return { value: 1, readAt: NOW };
    });
    await readThrough(deps, kind);
    // The lease (2 × UPSTREAM_TIMEOUT_MS + 1 s) less the write's reserve (Redis: a store call's budget, at most 1 s): until
    // 2026-11-28 a read had no deadline, and mainnet's could outlast the lease.
    expect(deadline).toBe(NOW + readMs);
  },
);

it('leaves the lease of the instance that took it after its own ran out, so a third does not read too', async () => {
  let clock = NOW;
  const store = createMemoryLastGoodStore(() => clock);
  const leases: boolean[] = [];
  const lastGood: LastGoodStore = {
    ...store,
    lease: async (...args) => {
      const lease = await store.lease(...args);
      leases.push(lease.taken);
      return lease;
    },
  };
  const [first, second, third] = Array.from({ length: 3 }, () =>
    createTestDeps({}, { now: () => clock, lastGood }),
  );
  if (!first || !second || !third) throw new Error('no fleet');
  // Each read answers when the test lets it: with the reading taken when it began (a 5-s cadence).
  const answers: Array<() => void> = [];
  let reads = 0;
  const kind = kindOf((previous) => {
    reads += 1;
    const readAt = clock;
    const value = (previous ?? 0) + 1;
    if (reads > 2) return Promise.resolve({ value, readAt });
    return new Promise((resolve) => answers.push(() => resolve({ value, readAt })));
  }, 5_000);

  const late = readThrough(first, kind);
  await until(() => answers.length === 1);
  // The first holder is still reading when its lease (6 s by default) runs out; the second instance
  // takes the lease.
  clock += 6_001;
  const next = readThrough(second, kind);
  await until(() => answers.length === 2);
  // The first holder's reading lands now. Its write must not free the second holder's lease: until
  // 2026-11-28 it deleted whatever lease was there.
  answers[0]?.();
  expect(await late).toMatchObject({ value: 1, readNow: true });
  expect(await store.get(`${KEY}:lease`)).not.toBeNull();
  // A third instance finds the entry past its cadence and the lease held: it waits for the holder.
  const waiting = readThrough(third, kind);
  await until(() => leases.length === 3);
  answers[1]?.();
  expect(await next).toMatchObject({ value: 1, readNow: true });
  expect(await waiting).toMatchObject({ value: 1, readAt: clock, readNow: false });
  expect(leases).toEqual([true, true, false]);
  expect(reads).toBe(2);
  // The second holder let go of its own lease with its write.
  expect(await store.get(`${KEY}:lease`)).toBeNull();
});

it('lets go only of a lease it holds: release and write carry the token it was taken with', async () => {
  let clock = NOW;
  const store = createMemoryLastGoodStore(() => clock);
  expect((await store.lease(`${KEY}:lease`, 1_000, KEY, 'first')).taken).toBe(true);
  clock += 1_001; // it ran out
  expect((await store.lease(`${KEY}:lease`, 1_000, KEY, 'second')).taken).toBe(true);
  await store.release(`${KEY}:lease`, 'first');
  const entry = { value: 1, readAt: NOW, failure: null };
  await store.set(KEY, entry, 60_000, { releaseLease: { key: `${KEY}:lease`, token: 'first' } });
  expect(await store.get(KEY)).toEqual(entry);
  expect(await store.get(`${KEY}:lease`)).toBe('second');
  await store.set(KEY, entry, 60_000, { releaseLease: { key: `${KEY}:lease`, token: 'second' } });
  expect(await store.get(`${KEY}:lease`)).toBeNull();
});

it("does not leave the store for a call that only its caller's deadline cut short", async () => {
  let clock = NOW;
  const { lastGood, counted } = countingStore(() => clock);
  const deps = createTestDeps({}, { now: () => clock, lastGood });
  // A hung call given 20 ms by its caller (a refresh's read near its deadline) runs out of them.
  const hung = () =>
    new Promise<never>(() => {
      clock += 20;
    });
  expect(await callSharedStore(deps, hung, { deadlineAt: NOW + 20 })).toBeUndefined();
  // The store was not judged by it: the next read-through call asks the store. Until later on
  // 2026-11-28 such a call sent the instance off the store for 10 s.
  const kind = kindOf(async () => ({ value: 1, readAt: clock }));
  const before = counted.gets;
  await readThrough(deps, kind);
  expect(counted.gets).toBeGreaterThan(before);
  // A call that ran out of the store's own budget still does.
  const deps2 = createTestDeps({}, { now: () => clock, lastGood });
  const slow = () =>
    new Promise<never>(() => {
      clock += 1_000;
    });
  expect(await callSharedStore(deps2, slow)).toBeUndefined();
  const after = counted.gets;
  await readThrough(
    deps2,
    kindOf(async () => ({ value: 2, readAt: clock }), 30_000, 'test:lease-other'),
  );
  expect(counted.gets).toBe(after);
});
