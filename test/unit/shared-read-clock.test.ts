// lib/store/shared-read.ts under a clock set back (an NTP step, a restored VM): a reading this instance
// holds, or a back-off it started, must not outlive its time by as long as the clock went back, and a
// copy of its own from before the step, of unknown age, must neither win over the fleet's entry nor be
// served as the last good reading.
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

/** Counts the store's `get` calls of `target`. */
function countGets(target: TestDeps): () => number {
  const store = target.lastGood;
  let gets = 0;
  target.lastGood = {
    ...store,
    get: (key) => {
      gets += 1;
      return store.get(key);
    },
  };
  return () => gets;
}

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

  it('takes a fresh entry of the fleet after a step back, without reading upstream', async () => {
    const other = createTestDeps({}, { now: () => clock });
    other.lastGood = deps.lastGood; // one shared store
    expect((await readThrough(deps, kind)).value).toBe(1);
    clock -= HOUR_MS; // this instance's clock was an hour ahead, and is put right
    clock += 1_000;
    expect((await readThrough(other, kind)).value).toBe(2); // the fleet's reading, at the right time
    clock += 1_000;
    expect(await readThrough(deps, kind)).toMatchObject({ value: 2, readNow: false });
    expect(reads).toBe(2);
  });

  it('serves no reading of unknown age when the upstream fails after a step back', async () => {
    expect((await readThrough(deps, kind)).value).toBe(1);
    clock -= HOUR_MS;
    failing = true;
    // The reading taken "an hour ahead" is not the last good one: its age is unknown.
    expect(await readThrough(deps, kind)).toMatchObject({
      value: null,
      readAt: null,
      failure: { kind: 'error', attempted: true },
    });
    // And it is not written back over the store's entry as the last good reading either.
    const other = createTestDeps({}, { now: () => clock });
    other.lastGood = deps.lastGood;
    expect((await readThrough(other, kind)).value).toBeNull();
  });

  it('looks at the store again after a small step back, without reading upstream', async () => {
    const gets = countGets(deps);
    expect((await readThrough(deps, kind)).value).toBe(1);
    const before = gets();
    clock -= 2_000; // to before the copy was taken; the reading is 2 s "ahead", within the fleet's skew
    expect(await readThrough(deps, kind)).toMatchObject({ value: 1, readNow: false });
    expect(gets()).toBe(before + 1);
    expect(reads).toBe(1);
  });

  it('does not keep backing off a failed first read for as long as the clock went back', async () => {
    failing = true;
    expect(await readThrough(deps, kind)).toMatchObject({ value: null, failure: { attempted: true } });
    clock += 1_000; // the retry is 5 s away: backing off
    expect(await readThrough(deps, kind)).toMatchObject({ value: null, failure: { attempted: false } });
    expect(reads).toBe(1);
    clock -= HOUR_MS;
    failing = false;
    expect(await readThrough(deps, kind)).toMatchObject({ value: 2, failure: null, readNow: true });
  });

  it('goes back to the store once its time without it is over, even if the clock went back meanwhile', async () => {
    expect(STORE_SICK_MS).toBeLessThan(30_000); // the steps below are each past one back-off
    const down = createFaultyStore('throw');
    deps.lastGood = down;
    const gets = countGets(deps);
    await readThrough(deps, kind); // the store fails: this instance skips it for STORE_SICK_MS
    expect(gets()).toBe(1);
    clock += 30_000;
    await readThrough(deps, kind); // after the back-off: tried again, fails again (now 20 s)
    expect(gets()).toBe(2);
    clock += 30_000;
    clock -= HOUR_MS;
    await readThrough(deps, kind);
    expect(gets()).toBe(3);
  });
});
