import type { AppDeps } from '../lib/deps';
import { runBacktestJob } from './backtest-job';
import { runForecastJob } from './forecast-job';
import { runSnapshotJob } from './snapshot-job';

/** One scheduled job: receives the dependencies and the time the scheduler fired. */
export type ScheduledJob = {
  name: string;
  run: (deps: AppDeps, firedAt: number) => Promise<unknown>;
};

/**
 * Jobs run on every scheduler tick, by both hosts (Worker Cron Trigger and Node timer): the 90-second
 * snapshot, the hourly forecast kept for scoring, and the hourly back-test of the stored history that
 * /api/forecast-accuracy answers with until enough live forecasts are scored (each a one-query no-op
 * tick once its hour is done; the back-test, while under 8 days of history leave nothing to replay,
 * a read of the stored hours per tick, so that history imported or backfilled is scored at once).
 */
export const SCHEDULED_JOBS: ScheduledJob[] = [
  { name: 'snapshot', run: runSnapshotJob },
  { name: 'forecast', run: runForecastJob },
  { name: 'backtest', run: runBacktestJob },
];

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
