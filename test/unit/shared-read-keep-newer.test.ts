// lib/store/shared-read.ts with lib/store/last-good.ts: a refresh never replaces a newer reading another
// instance stored meanwhile, and an entry held while another instance refreshes is never held past its
// cadence (it would be served as stale though no refresh failed).
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { readThrough, type SharedKind } from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;
const FRESH_MS = 30_000;

function kindOf(key: string, read: SharedKind<number>['read']): SharedKind<number> {
  return { key, schema: z.number(), freshMs: FRESH_MS, read };
}

it("keeps the newer reading a waiting instance stored when the lease holder's refresh then fails", async () => {
  const key = 'test:keep-newer';
  const store = createMemoryLastGoodStore(() => NOW);
  await store.set(key, { value: 1, readAt: NOW - 60_000, failure: null }, 86_400_000);
  let failHolder: (error: Error) => void = () => {};
  const holder = createTestDeps({}, { now: () => NOW, lastGood: store });
  const waiter = createTestDeps({}, { now: () => NOW, lastGood: store });

  // The holder takes the lease; its upstream read hangs.
  const held = readThrough(
    holder,
    kindOf(key, () => new Promise((_, reject) => (failHolder = reject))),
  );
  await new Promise((resolve) => setTimeout(resolve, 10));
  // The other instance (a kind read without a deadline) waits for it 2 s, then reads and stores value 2.
  const waited = await readThrough(
    waiter,
    kindOf(key, async () => ({ value: 2, readAt: NOW })),
  );
  expect(waited).toMatchObject({ value: 2, readAt: NOW, failure: null });
  expect(waiter.logs.join('\n')).toContain('lease holder late');

  // The holder's read fails: its failure record (with the old value) must not replace value 2.
  failHolder(new Error('upstream hung'));
  expect(await held).toMatchObject({ value: 2, readAt: NOW, failure: null });
  expect(await store.get(key)).toEqual({ value: 2, readAt: NOW, failure: null });
});

it('stores a failure record over the same reading, and a newer reading over an older one', async () => {
  const key = 'test:store-newer';
  const store = createMemoryLastGoodStore(() => NOW);
  await store.set(key, { value: 1, readAt: NOW - 60_000, failure: null }, 86_400_000);
  const failing = createTestDeps({}, { now: () => NOW, lastGood: store });
  const reading = await readThrough(
    failing,
    kindOf(key, async () => {
      throw new Error('down');
    }),
  );
  expect(reading).toMatchObject({ value: 1, failure: { attempted: true } });
  expect(await store.get(key)).toMatchObject({ value: 1, readAt: NOW - 60_000, failure: { count: 1 } });
  expect(await store.set(key, { value: 3, readAt: NOW, failure: null }, 86_400_000)).toEqual({
    stored: true,
  });
  expect(await store.set(key, { value: 2, readAt: NOW - 1, failure: null }, 86_400_000)).toEqual({
    stored: false,
    kept: { value: 3, readAt: NOW, failure: null },
  });
});

it('does not hold a fresh entry past its cadence while another instance holds the lease', async () => {
  const key = 'test:held-cadence';
  let clock = NOW;
  const store = createMemoryLastGoodStore(() => clock);
  // The fleet's entry, read 29.5 s ago; another instance has just taken the lease to refresh it.
  await store.set(key, { value: 1, readAt: NOW - 29_500, failure: null }, 86_400_000);
  await store.lease(`${key}:lease`, 60_000, key, 'another');
  let reads = 0;
  const kind = kindOf(key, async () => {
    reads += 1;
    return { value: 2, readAt: clock };
  });
  const deps = createTestDeps({}, { now: () => clock, lastGood: store });
  expect(await readThrough(deps, kind)).toMatchObject({ value: 1, readAt: NOW - 29_500, readNow: false });
  // 0.9 s later the entry is past its 30 s cadence: this instance must look again (wait for the
  // holder, then read itself), not keep serving its copy with no failure on record.
  clock += 900;
  const later = await readThrough(deps, kind);
  expect(later).toMatchObject({ value: 2, readAt: clock, readNow: true });
  expect(reads).toBe(1);
});

it('replaces an unreadable entry that claims a recent read time, so a failed refresh backs the fleet off', async () => {
  const key = 'test:unreadable';
  const store = createMemoryLastGoodStore(() => NOW);
  // Written by a deploy whose reading had another shape: it fails this schema, its read time is plausible.
  await store.set(key, { value: 'another shape', readAt: NOW - 20_000, failure: null }, 86_400_000);
  let reads = 0;
  const kind = kindOf(key, async () => {
    reads += 1;
    throw new Error('upstream down');
  });
  const fleet = Array.from({ length: 4 }, () => createTestDeps({}, { now: () => NOW, lastGood: store }));
  const [first, ...others] = await Promise.all(fleet.map((deps) => readThrough(deps, kind)));
  expect(first).toMatchObject({ value: null, failure: { attempted: true } });
  // The failure record replaced the unreadable entry: the others back off instead of reading too.
  for (const other of others) expect(other).toMatchObject({ value: null, failure: { attempted: false } });
  expect(reads).toBe(1);
  expect(await store.get(key)).toMatchObject({ value: null, readAt: null, failure: { count: 1 } });
});

it('replaces only the unreadable document the writer saw, never a newer one stored since', async () => {
  const key = 'test:unreadable-store';
  const store = createMemoryLastGoodStore(() => NOW);
  const failure = { value: null, readAt: null, failure: { kind: 'error', retryAt: NOW + 5_000, count: 1 } };
  await store.set(key, { value: 'another shape', readAt: NOW - 20_000, failure: null }, 86_400_000);
  const unreadable = await store.get(key);
  expect(await store.set(key, failure, 86_400_000)).toEqual({ stored: false, kept: unreadable });
  expect(await store.set(key, failure, 86_400_000, { unreadableAt: NOW - 10_000 })).toMatchObject({
    stored: false,
  });
  expect(await store.set(key, failure, 86_400_000, { unreadableAt: NOW - 20_000 })).toEqual({ stored: true });
  expect(await store.get(key)).toEqual(failure);
});
