// lib/store/shared-read.ts with a store that answers, but slowly: waiting for another instance's
// reading must stay bounded in time, the store's own calls included, not in the number of polls.
import { expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { LastGoodStore } from '../../lib/store/last-good';
import { readThrough, type SharedKind } from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';

it('waits about 2 s for a lease holder when every store call takes 900 ms, then reads itself', async () => {
  // Each store call moves the clock on 900 ms (under the store's 1 s budget) and answers at once.
  let clock = 1_700_000_000_000;
  const start = clock;
  let gets = 0;
  const slow = <T>(value: T) => {
    clock += 900;
    return Promise.resolve(value);
  };
  const store: LastGoodStore = {
    scope: 'redis',
    get: () => {
      gets += 1;
      return slow(null);
    },
    // Another instance holds the lease and never writes.
    lease: () => slow({ taken: false, entry: null }),
    set: () => slow({ stored: true as const }),
    release: () => slow(undefined),
  };
  let readAt: number | undefined;
  const kind: SharedKind<number> = {
    key: 'test:slow-store',
    schema: z.number(),
    freshMs: 30_000,
    read: async () => {
      readAt = clock;
      return { value: 1, readAt: clock };
    },
  };
  const deps = createTestDeps({}, { now: () => clock, lastGood: store });
  expect((await readThrough(deps, kind)).value).toBe(1);
  // The first look and the lease take 1.8 s; the wait for the holder then ends within 2 s, one store
  // call late at most (it used to make all six polls: 7.2 s before reading).
  expect(readAt! - start).toBeLessThanOrEqual(1_800 + 2_000 + 900);
  expect(gets).toBeLessThanOrEqual(1 + 3);
  expect(deps.logs.some((line) => line.includes('lease holder late'))).toBe(true);
});

it('makes its last poll at the end of the wait, though each store call takes a few milliseconds', async () => {
  // Timers and the clock are simulated together: the polls' delays and the store's 5 ms calls add up.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  try {
    let gets = 0;
    const store: LastGoodStore = {
      scope: 'redis',
      get: async () => {
        gets += 1;
        vi.advanceTimersByTime(5);
        return null;
      },
      lease: async () => ({ taken: false, entry: null }),
      set: async () => ({ stored: true as const }),
      release: async () => {},
    };
    const kind: SharedKind<number> = {
      key: 'test:holder-wait',
      schema: z.number(),
      freshMs: 30_000,
      read: async () => ({ value: 1, readAt: Date.now() }),
    };
    const deps = createTestDeps({}, { now: () => Date.now(), lastGood: store });
    const reading = readThrough(deps, kind);
    await vi.runAllTimersAsync();
    expect((await reading).value).toBe(1);
    // One look before the lease, then all six polls of the 2-s wait (the sixth used to be skipped).
    expect(gets).toBe(1 + 6);
  } finally {
    vi.useRealTimers();
  }
});
