// The scheduler tick's jobs (cron/scheduled.ts): one after another, the snapshot first, a failure
// logged without stopping the rest.
import { describe, expect, it } from 'vitest';
import { runScheduledJobs, SCHEDULED_JOBS, type ScheduledJob } from '../../cron/scheduled';
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
