// lib/store/shared-read.ts: a caller that asks for a reading taken since `notBefore` (a snapshot's
// slot) and finds a read in flight, begun for a request, waits for it and reads again at once only
// when it served an older entry without trying the upstream (after a failed try, once the back-off it
// set has ended: see shared-read-slot-backoff.test.ts).
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { readThrough, type SharedKind } from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;
const SLOT_START = NOW - 10_000;

/** The fleet's entry, read 2 s before the slot (fresh for 30 s), behind a store answering in 50 ms. */
async function fleetStore(key: string): Promise<LastGoodStore> {
  const shared = createMemoryLastGoodStore(() => NOW);
  await shared.set(key, { value: 1, readAt: SLOT_START - 2_000, failure: null }, 86_400_000);
  return {
    ...shared,
    get: async (k: string) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return shared.get(k);
    },
  };
}

function kindReading(key: string, outcome: () => number) {
  let reads = 0;
  const kind: SharedKind<number> = {
    key,
    schema: z.number(),
    freshMs: 30_000,
    read: async () => {
      reads += 1;
      return { value: outcome(), readAt: NOW };
    },
  };
  return { kind, reads: () => reads };
}

it('reads again for a slot when the read it joined served the fleet entry from before it', async () => {
  const { kind, reads } = kindReading('test:join-old', () => 2);
  const deps = createTestDeps({}, { now: () => NOW, lastGood: await fleetStore(kind.key) });
  const request = readThrough(deps, kind);
  const snapshot = readThrough(deps, kind, { notBefore: SLOT_START });
  expect(await request).toMatchObject({ value: 1, readAt: SLOT_START - 2_000 });
  expect(await snapshot).toMatchObject({ value: 2, readAt: NOW });
  expect(reads()).toBe(1);
});

it('does not try a failing upstream again at once for a slot when the read it joined has just tried it, but once its back-off has ended', async () => {
  let fails = 1;
  const { kind, reads } = kindReading('test:join-failing', () => {
    if (fails-- > 0) throw new Error('upstream down');
    return 2;
  });
  // No fleet entry: the request's read goes to the upstream itself, and fails (a 5-s back-off).
  const deps = createTestDeps({}, { now: () => NOW, lastGood: createMemoryLastGoodStore(() => NOW) });
  const request = readThrough(deps, kind);
  const snapshot = readThrough(deps, kind, { notBefore: SLOT_START });
  expect((await request).failure).toMatchObject({ attempted: true });
  expect(reads()).toBe(1);
  // The slot's read waits for the back-off the request's failure set (a real 5 s: the clock stands
  // still), then reads once. Until 2026-11-28 it took the request's failure, and the slot was skipped.
  expect(await snapshot).toMatchObject({ value: 2, readAt: NOW, failure: null });
  expect(reads()).toBe(2);
});
