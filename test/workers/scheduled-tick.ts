// What the workerd tests of the Cron Trigger share: one tick of the Worker's `scheduled` handler, and
// plain queries on the test database through Neon's driver.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { Pool } from '@neondatabase/serverless';
import { vi } from 'vitest';
import worker from '../../functions/index';
import { setup, workerEnv } from './test-setup';

/** Runs the Worker's `scheduled` handler for one Cron Trigger tick and returns what it logged. */
export async function tick(scheduledTime: number): Promise<string[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  try {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime, cron: '* * * * *' }), workerEnv, ctx);
    await waitOnExecutionContext(ctx);
  } finally {
    spy.mockRestore();
  }
  return lines;
}

/** Runs one query on the test database and returns its rows. */
export async function query(text: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  const pool = new Pool({ connectionString: setup.env.DATABASE_URL });
  // As in lib/store/neon.ts: the relay's closing socket is reported on the pool after end().
  pool.on('error', () => {});
  try {
    return (await pool.query(text, params)).rows as Array<Record<string, unknown>>;
  } finally {
    await pool.end();
  }
}
