// lib/store/shared-read.ts: a reading tells when the last refresh failed (`failure.failedAt`), told
// from the entry's retry time and count (the stored failure has no time of its own, in this release or
// the one before), when this instance next looks for a refresh (`failure.retryAt`), and when this
// instance took the entry it serves (`heldAt`).
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { readThrough, type SharedKind } from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;
const KEY = 'test:failed-at';

function setup() {
  let now = NOW;
  const kind: SharedKind<number> = {
    key: KEY,
    schema: z.number(),
    freshMs: 30_000,
    read: async () => {
      throw new Error('upstream down');
    },
  };
  const store = createMemoryLastGoodStore(() => now);
  /** Another instance of the fleet, over the same store. */
  const instance = () => createTestDeps({}, { now: () => now, lastGood: store });
  return { kind, store, deps: instance(), instance, advance: (ms: number) => (now += ms) };
}

it('dates each failed refresh by its attempt, and keeps that date through its back-off', async () => {
  const t = setup();
  expect(await readThrough(t.deps, t.kind)).toMatchObject({
    value: null,
    failure: { kind: 'error', failedAt: NOW, attempted: true },
    heldAt: NOW,
  });
  expect(await t.store.get(KEY)).toEqual({
    value: null,
    readAt: null,
    failure: { kind: 'error', retryAt: NOW + 5_000, count: 1 },
  });
  // Within the back-off, the same failure, with no attempt, and the same time this instance looks
  // again: the retry time, or up to a second after it (its copy is held with jitter).
  const first = (await readThrough(t.deps, t.kind)).failure?.retryAt ?? 0;
  expect(first).toBeGreaterThanOrEqual(NOW + 5_000);
  expect(first).toBeLessThanOrEqual(NOW + 6_000);
  t.advance(2_000);
  expect(await readThrough(t.deps, t.kind)).toMatchObject({
    failure: { failedAt: NOW, retryAt: first, attempted: false },
  });
  // Past it (and this instance's jittered look again, up to a second later), the next attempt fails.
  t.advance(5_000);
  expect(await readThrough(t.deps, t.kind)).toMatchObject({
    failure: { failedAt: NOW + 7_000, attempted: true },
    heldAt: NOW + 7_000,
  });
  expect(await t.store.get(KEY)).toMatchObject({ failure: { retryAt: NOW + 17_000, count: 2 } });
});

it('tells the time of a failure stored by the release before from its retry time and count', async () => {
  const t = setup();
  // The fourth failure in a row, 10 s ago: its back-off was 40 s.
  const failure = { kind: 'timeout', retryAt: NOW + 30_000, count: 4 };
  await t.store.set(KEY, { value: null, readAt: null, failure }, 86_400_000);
  expect(await readThrough(t.deps, t.kind)).toMatchObject({
    failure: { kind: 'timeout', failedAt: NOW - 10_000, attempted: false },
    heldAt: NOW,
  });
  // Past the longest back-off, a minute: another instance, 2 s later.
  await t.store.set(KEY, { value: null, readAt: null, failure: { ...failure, count: 9 } }, 86_400_000);
  t.advance(2_000);
  expect(await readThrough(t.instance(), t.kind)).toMatchObject({
    failure: { failedAt: NOW + 30_000 - 60_000 },
    heldAt: NOW + 2_000,
  });
});
