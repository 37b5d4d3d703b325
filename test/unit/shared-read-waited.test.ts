// lib/store/shared-read.ts: a read that waits for the lease holder and then finds a failure backing
// off names it as one it waited for (`waited`: a price is labelled `stale-timeout`/`stale-error`)
// only when the failure is not the one the store held when the wait began. Until 2026-11-28 it was
// compared with the failure of this instance's own copy when that was newer than the store's entry
// (a write of it lost, the store sick meanwhile): with no failure there, the store's old back-off was
// taken for the holder's new failure (second reading, F6).
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { readThrough, type SharedKind } from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;
const KEY = 'test:waited-own-copy';

it("does not take a back-off the store held when its wait began for the holder's failure", async () => {
  let now = NOW - 35_000;
  const kind: SharedKind<number> = {
    key: KEY,
    schema: z.number(),
    freshMs: 30_000,
    read: async () => ({ value: 2, readAt: now }),
  };
  // This instance read 35 s ago and holds that reading; its write reached another store than the
  // fleet's, which still holds an older reading with a failure backing off for 4 s more.
  let store: LastGoodStore = createMemoryLastGoodStore(() => now);
  const lastGood: LastGoodStore = {
    scope: 'redis',
    get: (key) => store.get(key),
    set: (...args) => store.set(...args),
    lease: (...args) => store.lease(...args),
    release: (...args) => store.release(...args),
  };
  const deps = createTestDeps({}, { now: () => now, lastGood });
  expect(await readThrough(deps, kind)).toMatchObject({ value: 2, readNow: true });
  now = NOW;
  store = createMemoryLastGoodStore(() => now);
  const failure = { kind: 'timeout', retryAt: NOW + 4_000, count: 1 };
  await store.set(KEY, { value: 1, readAt: NOW - 50_000, failure }, 86_400_000);
  // Another instance holds the lease: this one's copy is past its cadence, so it waits, and its first
  // poll finds the store's entry backing off, the very failure that was there when it began.
  expect((await store.lease(`${KEY}:lease`, 5_000, KEY, 'another')).taken).toBe(true);
  // It serves its own newer reading (2, 35 s old) under the store's back-off: until 2026-11-28 it
  // served the store's older one (1, 50 s old), which near the 5-minute limit could leave a price
  // `unavailable` beside a usable quote.
  expect(await readThrough(deps, kind)).toMatchObject({
    value: 2,
    readAt: NOW - 35_000,
    failure: { kind: 'timeout', attempted: false, waited: false },
  });
});
