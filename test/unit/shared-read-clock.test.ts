// lib/store/shared-read.ts under a clock set back (an NTP step, a restored VM): a reading this instance
// holds, or a back-off it started, must not outlive its time by as long as the clock went back.
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readThrough, type SharedKind, STORE_SICK_MS } from '../../lib/store/shared-read';
import { createFaultyStore, createTestDeps, type TestDeps } from '../helpers/deps';

const HOUR_MS = 3_600_000;
let clock: number;
let deps: TestDeps;
let reads: number;
let failing: boolean;

const kind: SharedKind<number> = {
  key: 'test:clock',
  schema: z.number(),
  freshMs: 30_000,
  read: async () => {
    reads += 1;
    if (failing) throw new Error('upstream down');
    return { value: reads, readAt: clock };
  },
};

beforeEach(() => {
  clock = 1_700_000_000_000;
  deps = createTestDeps({}, { now: () => clock });
  reads = 0;
  failing = false;
});

describe('shared reads under a clock set back', () => {
  it('reads again instead of holding a reading "from the future" for as long as the clock went back', async () => {
    expect((await readThrough(deps, kind)).value).toBe(1);
    clock += 10_000;
    expect((await readThrough(deps, kind)).value).toBe(1); // held: fresh
    clock -= HOUR_MS;
    const after = await readThrough(deps, kind);
    expect(after).toMatchObject({ value: 2, readAt: clock, readNow: true });
    // The new reading is held as usual from then on, and refreshed at its usual time.
    clock += 20_000;
    expect((await readThrough(deps, kind)).value).toBe(2);
    clock += 10_000;
    expect((await readThrough(deps, kind)).value).toBe(3);
    expect(reads).toBe(3);
  });

  it('tolerates a small step back: the held reading is looked at again in the store, not read upstream', async () => {
    expect((await readThrough(deps, kind)).value).toBe(1);
    clock += 5_000;
    clock -= 2_000;
    expect(await readThrough(deps, kind)).toMatchObject({ value: 1, readNow: false });
    expect(reads).toBe(1);
  });

  it('does not keep backing off a failure for as long as the clock went back', async () => {
    expect((await readThrough(deps, kind)).value).toBe(1);
    clock += 30_000;
    failing = true;
    expect((await readThrough(deps, kind)).failure).toEqual({ kind: 'error', attempted: true });
    expect(reads).toBe(2);
    clock -= HOUR_MS;
    failing = false;
    expect(await readThrough(deps, kind)).toMatchObject({ value: 3, failure: null, readNow: true });
  });

  it('goes back to the store once its time without it is over, even if the clock went back meanwhile', async () => {
    let storeCalls = 0;
    const down = createFaultyStore('throw');
    deps.lastGood = {
      ...down,
      get: (key) => {
        storeCalls += 1;
        return down.get(key);
      },
    };
    await readThrough(deps, kind); // the store fails: this instance skips it for STORE_SICK_MS
    expect(storeCalls).toBe(1);
    clock += 30_000;
    await readThrough(deps, kind); // after the back-off: tried again, fails again (now 20 s)
    expect(storeCalls).toBe(2);
    clock += 30_000;
    clock -= HOUR_MS;
    await readThrough(deps, kind);
    expect(storeCalls).toBe(3);
    expect(STORE_SICK_MS).toBeLessThan(30_000);
  });
});
