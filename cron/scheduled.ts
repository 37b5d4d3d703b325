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
 * tick once its hour is done).
 */
export const SCHEDULED_JOBS: ScheduledJob[] = [
  { name: 'snapshot', run: runSnapshotJob },
  { name: 'forecast', run: runForecastJob },
  { name: 'backtest', run: runBacktestJob },
];

/**
 * Runs every scheduled job once. A failing job is logged and never stops the others; the next tick
 * retries, so nothing is lost by a failure here.
 */
export async function runScheduledJobs(deps: AppDeps, firedAt: number, jobs = SCHEDULED_JOBS): Promise<void> {
  const started = deps.now();
  const results = await Promise.allSettled(jobs.map((job) => job.run(deps, firedAt)));
  results.forEach((result, i) => {
    const name = jobs[i]?.name ?? 'job';
    if (result.status === 'rejected')
      deps.log.error('scheduled job failed', { job: name, error: String(result.reason) });
  });
  deps.log.info('scheduled run', {
    firedAt: new Date(firedAt).toISOString(),
    jobs: jobs.length,
    failed: results.filter((r) => r.status === 'rejected').length,
    ms: deps.now() - started,
  });
}
