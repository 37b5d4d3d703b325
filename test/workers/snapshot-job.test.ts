import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../functions/index';
import { query, tick } from './scheduled-tick';
import { useNeonRelay, workerEnv } from './test-setup';

const SLOT_MS = 90_000;

beforeAll(useNeonRelay);

describe('Worker Cron Trigger in workerd', () => {
  it('writes the slot of the tick into Postgres through Neon, once however many ticks touch it', async () => {
    // The ticks' readings and the second tick must land in the same slot and hour as the first: a
    // start in a slot's (or an hour's) last seconds waits for the next one.
    const roomLeft = () => Math.min(SLOT_MS - (Date.now() % SLOT_MS), 3_600_000 - (Date.now() % 3_600_000));
    while (roomLeft() < 20_000) await new Promise((resolve) => setTimeout(resolve, 1_000));
    const scheduledTime = Date.now();
    const slotStart = Math.floor(scheduledTime / SLOT_MS) * SLOT_MS;
    const logs = await tick(scheduledTime);
    expect(logs.find((l) => l.includes(' info snapshot '))).toContain('"mainnet":"written"');
    expect(logs.some((l) => l.includes('scheduled run') && l.includes('"failed":0'))).toBe(true);

    const mainnet = await query('SELECT source, read_at FROM mainnet_snapshots WHERE slot_start = $1', [
      new Date(slotStart).toISOString(),
    ]);
    expect(mainnet).toHaveLength(1);
    // The simulators listen on 127.0.0.1, an address-only host: labelled by place, never by address.
    expect(String(mainnet[0]?.source)).toMatch(/^rpc-\d$/);
    const l2 = await query('SELECT network FROM l2_snapshots WHERE slot_start = $1 ORDER BY network', [
      new Date(slotStart).toISOString(),
    ]);
    expect(l2.map((r) => r.network)).toEqual(['arbitrum', 'base', 'optimism', 'polygon']);

    // The same tick stored the hour's forecast, kept to be scored once its 24 hours have happened.
    const hourStart = Math.floor(scheduledTime / 3_600_000) * 3_600_000;
    expect(logs.find((l) => l.includes(' info forecast '))).toContain('"stored":"written"');
    const forecasts = await query(
      'SELECT jsonb_array_length(points) AS n, scored_at FROM hourly_forecasts WHERE origin_hour = $1',
      [new Date(hourStart).toISOString()],
    );
    expect(forecasts).toEqual([{ n: 24, scored_at: null }]);

    // A second tick in the same slot finds it complete, and the hour's forecast stored.
    const again = await tick(scheduledTime + 1_000);
    expect(again.find((l) => l.includes(' info snapshot '))).toContain('"mainnet":"exists","l2":[]');
    expect(again.find((l) => l.includes(' info forecast '))).toContain('"stored":"exists"');
    const count = await query('SELECT count(*)::int AS n FROM mainnet_snapshots WHERE slot_start = $1', [
      new Date(slotStart).toISOString(),
    ]);
    expect(count[0]?.n).toBe(1);
    for (const line of [...logs, ...again]) expect(line).not.toMatch(/sim-secret|127\.0\.0\.1/);
  }, 60_000);

  it('logs a database it cannot reach, reports the run failed, and leaks no credential', async () => {
    const deadDb = 'postgres://postgres:hunter2secret@127.0.0.1:1/none';
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      const ctx = createExecutionContext();
      const controller = createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' });
      await worker.scheduled(controller, { ...workerEnv, DATABASE_URL: deadDb }, ctx);
      await waitOnExecutionContext(ctx);
    } finally {
      spy.mockRestore();
    }
    expect(lines.some((l) => l.includes('snapshot not stored; the next run retries'))).toBe(true);
    expect(lines.some((l) => l.includes('forecast not stored or scored; the next run retries'))).toBe(true);
    expect(lines.some((l) => l.includes('backtest not stored; the next run retries'))).toBe(true);
    expect(lines.some((l) => l.includes('scheduled run') && l.includes('"failed":3'))).toBe(true);
    expect(lines.join('\n')).not.toContain('hunter2secret');
  });
});
