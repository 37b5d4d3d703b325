// lib/store/shared-read.ts: the refresh lease. Its holder writes its reading and lets go of the lease
// whatever else of the store failed meanwhile.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { callSharedStore, readThrough, type SharedKind } from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;
const KEY = 'test:lease';

function kindOf(read: SharedKind<number>['read'], freshMs = 30_000, key = KEY): SharedKind<number> {
  return { key, schema: z.number(), freshMs, read };
}

it('writes its reading and lets go of the lease though another store call failed while it read', async () => {
  const store = createMemoryLastGoodStore(() => NOW);
  let gets = 0;
  const lastGood: LastGoodStore = {
    ...store,
    get: (key) => {
      gets += 1;
      return store.get(key);
    },
  };
  const deps = createTestDeps({}, { now: () => NOW, lastGood });
  const kind = kindOf(async () => {
    // A call of this instance's to the store beside the read fails meanwhile (a record the read waits
    // for; on a busy instance, another kind's read-through): the instance now skips the store.
    await callSharedStore(deps, () => Promise.reject(new Error('store down')));
    return { value: 1, readAt: NOW };
  });
  expect(await readThrough(deps, kind)).toMatchObject({ value: 1, readNow: true, failure: null });
  // Until 2026-11-28 the holder skipped its write then: the fleet's entry stayed due and its lease
  // held until it ran out, with every other instance waiting on it.
  expect(await store.get(KEY)).toEqual({ value: 1, readAt: NOW, failure: null });
  expect(await store.get(`${KEY}:lease`)).toBeNull();
  // The instance still skips the store otherwise: a read of another kind goes upstream without it.
  const before = gets;
  const other = kindOf(async () => ({ value: 2, readAt: NOW }), 30_000, 'test:lease-other');
  expect(await readThrough(deps, other)).toMatchObject({ value: 2, readNow: true });
  expect(gets).toBe(before);
  expect(await store.get('test:lease-other')).toBeNull();
});
