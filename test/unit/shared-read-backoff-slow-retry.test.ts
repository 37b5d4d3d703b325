// After a short back-off a fleet's slot reads make one upstream attempt: the others wait for the lease
// holder's whole lease, not HOLDER_WAIT_MS (2 s). Until 2026-11-28 a retry read slower than 2 s (a
// timing-out upstream, the usual reason for a back-off) had every waiting instance read it itself.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { readThrough, type SharedKind } from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;
const SLOT_START = NOW - 10_000;
const KEEP = 86_400_000;

it('reads once for a fleet of 4 after a short back-off, though the retry read takes 2.6 s', async () => {
  const key = 'test:slot-found-short-slow';
  const store = createMemoryLastGoodStore(() => NOW);
  const failure = { kind: 'timeout', retryAt: NOW + 200, count: 1 };
  await store.set(key, { value: 1, readAt: NOW - 40_000, failure }, KEEP);
  let reads = 0;
  const kind: SharedKind<number> = {
    key,
    schema: z.number(),
    freshMs: 30_000,
    read: async () => {
      reads += 1;
      await new Promise((resolve) => setTimeout(resolve, 2_600));
      return { value: 2, readAt: NOW };
    },
  };
  const instances = Array.from({ length: 4 }, () => createTestDeps({}, { now: () => NOW, lastGood: store }));
  const slots = await Promise.all(
    instances.map((deps) => readThrough(deps, kind, { notBefore: SLOT_START })),
  );
  for (const slot of slots) expect(slot).toMatchObject({ value: 2 });
  expect(reads).toBe(1);
}, 20_000);
