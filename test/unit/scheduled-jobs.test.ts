// The scheduler tick's jobs (cron/scheduled.ts): one after another, the snapshot first, a failure
// logged without stopping the rest.
import { describe, expect, it } from 'vitest';
import {
  retrySlotSnapshot,
  runScheduledJobs,
  runSlotTick,
  SCHEDULED_JOBS,
  type ScheduledJob,
} from '../../cron/scheduled';
import { SNAPSHOT_LATEST_TICK_MS, type SnapshotResult } from '../../cron/snapshot-job';
import { SLOT_MS } from '../../lib/store/slots';
import { createTestDeps } from '../helpers/deps';

describe('runScheduledJobs', () => {
  it('runs the slot snapshot first, then the hourly jobs', () => {
    expect(SCHEDULED_JOBS.map((job) => job.name)).toEqual(['snapshot', 'forecast', 'backtest']);
  });

  it('starts each job only once the one before it has settled, failed or not, and reports the failures', async () => {
    const deps = createTestDeps();
    const events: string[] = [];
    const job = (name: string, ms: number, fails = false): ScheduledJob => ({
      name,
      async run(_deps, firedAt) {
        events.push(`${name} start ${firedAt}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        events.push(`${name} end`);
        if (fails) throw new Error(`${name} broke`);
      },
    });
    // The first job is the slowest: run at once, the others would end before it.
    await runScheduledJobs(deps, 42, [job('a', 30, true), job('b', 1), job('c', 5)]);
    expect(events).toEqual(['a start 42', 'a end', 'b start 42', 'b end', 'c start 42', 'c end']);
    expect(deps.logs.filter((line) => line.includes('scheduled job failed'))).toEqual([
      expect.stringContaining('"job":"a"'),
    ]);
    expect(deps.logs.find((line) => line.includes('scheduled run'))).toContain('"failed":1');
  });
});

describe('runSlotTick and retrySlotSnapshot (the Node host slot runs)', () => {
  const SLOT = 1000 * SLOT_MS;
  /** A snapshot job that records its runs and leaves `missing` (or fails, with `fails`). */
  function snapshotJob(missing: string[], fails = false) {
    const runs: number[] = [];
    const job: ScheduledJob<SnapshotResult> = {
      name: 'snapshot',
      async run(_deps, firedAt) {
        runs.push(firedAt);
        if (fails) throw new Error('store down');
        return { slotStart: SLOT, mainnet: 'exists', l2: [], pruned: { mainnet: 0, l2: 0 }, missing };
      },
    };
    return { job, runs };
  }
  function hourlyJobs() {
    const runs: string[] = [];
    const jobs: ScheduledJob[] = ['forecast', 'backtest'].map((name) => ({
      name,
      run: async () => void runs.push(name),
    }));
    return { jobs, runs };
  }

  it('asks for a second try when the snapshot leaves a part of the slot or fails, never for a complete slot', async () => {
    const deps = createTestDeps();
    const at = SLOT + 250;
    const hourly = hourlyJobs();
    expect(await runSlotTick(deps, at, snapshotJob(['mainnet']).job, hourly.jobs)).toBe(true);
    expect(await runSlotTick(deps, at, snapshotJob(['base', 'polygon']).job, hourly.jobs)).toBe(true);
    expect(await runSlotTick(deps, at, snapshotJob([], true).job, hourly.jobs)).toBe(true);
    expect(await runSlotTick(deps, at, snapshotJob([]).job, hourly.jobs)).toBe(false);
    // The hourly jobs run after the snapshot each time, the failed one's too.
    expect(hourly.runs).toEqual(Array(4).fill(['forecast', 'backtest']).flat());
  });

  it('leaves the snapshot out of a tick that comes too late in its slot for a read to be stored, and runs the hourly jobs', async () => {
    const deps = createTestDeps();
    const hourly = hourlyJobs();
    const snapshot = snapshotJob(['mainnet']);
    // A start-up 70 s into a slot: no snapshot read, no second try.
    expect(await runSlotTick(deps, SLOT + 70_000, snapshot.job, hourly.jobs)).toBe(false);
    expect(snapshot.runs).toEqual([]);
    expect(hourly.runs).toEqual(['forecast', 'backtest']);
    expect(deps.logs.some((line) => line.includes('snapshot: left out, too late in its slot'))).toBe(true);
    expect(deps.logs.find((line) => line.includes('scheduled run'))).toContain('"jobs":2');
    // At the bound itself it still runs.
    expect(await runSlotTick(deps, SLOT + SNAPSHOT_LATEST_TICK_MS, snapshot.job, hourly.jobs)).toBe(true);
    expect(snapshot.runs).toEqual([SLOT + SNAPSHOT_LATEST_TICK_MS]);
  });

  it('tries the snapshot alone the second time', async () => {
    const deps = createTestDeps();
    const snapshot = snapshotJob([]);
    await retrySlotSnapshot(deps, SLOT + SNAPSHOT_LATEST_TICK_MS, snapshot.job);
    expect(snapshot.runs).toEqual([SLOT + SNAPSHOT_LATEST_TICK_MS]);
    expect(deps.logs.find((line) => line.includes('scheduled run'))).toContain('"jobs":1');
  });
});
