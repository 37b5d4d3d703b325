import type { AppDeps } from '../lib/deps';
import { slotStartOf } from '../lib/store/slots';
import { runBacktestJob } from './backtest-job';
import { runForecastJob } from './forecast-job';
import { runSnapshotJob, SNAPSHOT_LATEST_TICK_MS, type SnapshotResult } from './snapshot-job';

/** One scheduled job: receives the dependencies and the time the scheduler fired. */
export type ScheduledJob<R = unknown> = {
  name: string;
  run: (deps: AppDeps, firedAt: number) => Promise<R>;
};

/** The 90-second slot's snapshot (cron/snapshot-job.ts). */
export const SNAPSHOT_JOB: ScheduledJob<SnapshotResult> = { name: 'snapshot', run: runSnapshotJob };

/** The hourly jobs, run after the snapshot: each a one-query no-op once its hour is done (see below). */
export const HOURLY_JOBS: ScheduledJob[] = [
  { name: 'forecast', run: runForecastJob },
  { name: 'backtest', run: runBacktestJob },
];

/**
 * Jobs run on every scheduler tick, by both hosts (Worker Cron Trigger and Node timer): the 90-second
 * snapshot, the hourly forecast kept for scoring, and the hourly back-test of the stored history that
 * /api/forecast-accuracy answers with until enough live forecasts are scored (each a one-query no-op
 * tick once its hour is done; the back-test, while under 8 days of history leave nothing to replay,
 * a read of the stored hours per tick, so that history imported or backfilled is scored at once).
 */
export const SCHEDULED_JOBS: ScheduledJob[] = [SNAPSHOT_JOB, ...HOURLY_JOBS];

/**
 * Runs every scheduled job once, one after another in their order: the slot's snapshot first, so its
 * upstream reads are taken as early in the slot as they can be, and requests that arrive meanwhile
 * (the first ones after a start, or a refresh) share those reads instead of queueing behind the
 * hourly jobs' forecasting and queries, which on the Node host run on the same thread. A failing job
 * is logged and never stops the others; the next tick retries, so nothing is lost by a failure here.
 */
export async function runScheduledJobs(deps: AppDeps, firedAt: number, jobs = SCHEDULED_JOBS): Promise<void> {
  const started = deps.now();
  let failed = 0;
  for (const job of jobs) {
    try {
      await job.run(deps, firedAt);
    } catch (error) {
      failed += 1;
      deps.log.error('scheduled job failed', { job: job.name, error: String(error) });
    }
  }
  deps.log.info('scheduled run', {
    firedAt: new Date(firedAt).toISOString(),
    jobs: jobs.length,
    failed,
    ms: deps.now() - started,
  });
}

/**
 * The Node host's run at a slot's first tick (lib/node/scheduler.ts): the scheduled jobs, as
 * runScheduledJobs runs them, but without the snapshot when the tick comes more than
 * SNAPSHOT_LATEST_TICK_MS into its slot (a start late in a slot, or the run right after a slow one):
 * its read could end after the slot and be thrown away, so no upstream is asked for it, and the next
 * slot's run stores the next slot. Resolves true when the slot still lacks a part the snapshot would
 * store (a part skipped, or the run failed): the scheduler then gives the slot its second try
 * (retrySlotSnapshot). A complete slot resolves false and costs nothing more.
 */
export async function runSlotTick(
  deps: AppDeps,
  firedAt: number,
  snapshot = SNAPSHOT_JOB,
  hourly = HOURLY_JOBS,
): Promise<boolean> {
  const intoSlotMs = firedAt - slotStartOf(firedAt);
  if (intoSlotMs > SNAPSHOT_LATEST_TICK_MS) {
    const slot = new Date(slotStartOf(firedAt)).toISOString();
    deps.log.info('snapshot: left out, too late in its slot', { slot, intoSlotMs });
    await runScheduledJobs(deps, firedAt, hourly);
    return false;
  }
  // Until the snapshot has run, and when it fails (nothing stored), every part counts as missing.
  let partsLeft = true;
  const tracked: ScheduledJob = {
    name: snapshot.name,
    run: async (jobDeps, at) => {
      const result = await snapshot.run(jobDeps, at);
      partsLeft = result.missing.length > 0;
      return result;
    },
  };
  await runScheduledJobs(deps, firedAt, [tracked, ...hourly]);
  return partsLeft;
}

/**
 * The Node host's second try of a slot its first run left parts of: the snapshot alone (the hourly
 * jobs have run), which reads and stores only the parts still absent, as the Worker's second tick in
 * a slot does. There is no third: what this leaves stays empty.
 */
export function retrySlotSnapshot(deps: AppDeps, firedAt: number, snapshot = SNAPSHOT_JOB): Promise<void> {
  return runScheduledJobs(deps, firedAt, [snapshot]);
}
