// The back-test of stored history, kept by the Worker's Cron Trigger in workerd against PostgreSQL 15
// through Neon's driver, and served by GET /api/forecast-accuracy without replaying on the request.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import { scoreForecasts } from '../../lib/forecast/accuracy';
import { replayForecasts } from '../../lib/forecast/accuracy-replay';
import { ForecastAccuracyResponseSchema } from '../../lib/schemas/forecast-accuracy';
import { query, tick } from './scheduled-tick';
import { useNeonRelay, workerEnv } from './test-setup';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

beforeAll(useNeonRelay);

describe('forecast-accuracy back-test in workerd', () => {
  it('is replayed and stored by the Cron Trigger, then served from the store', async () => {
    // Eleven days of hourly history ending nine days ago (older than the 7-day window, so the other
    // workerd tests sharing this database keep their live 7d figures): 72 origins to replay.
    const nowHour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const first = nowHour - 20 * DAY_MS;
    const hours = Array.from({ length: 264 }, (_, i) => {
      const average = 10 + 4 * Math.sin((i / 24) * 2 * Math.PI) + (i % 7) / 10;
      return { time: first + i * HOUR_MS, low: average * 0.9, average, high: average * 1.2 };
    });
    await query(
      `INSERT INTO mainnet_snapshots (slot_start, read_at, low_gwei, average_gwei, high_gwei, source)
       SELECT t, t, l, a, h, 'workerd-test' FROM unnest($1::timestamptz[], $2::float8[], $3::float8[], $4::float8[]) AS s(t, l, a, h)
       ON CONFLICT DO NOTHING`,
      [
        hours.map((p) => new Date(p.time).toISOString()),
        hours.map((p) => p.low),
        hours.map((p) => p.average),
        hours.map((p) => p.high),
      ],
    );
    // A tick in the next hour: its summary is the newest whatever other test files' ticks stored
    // this hour (they share the database), and its snapshot and forecast parts store nothing.
    const logs = await tick(nowHour + HOUR_MS + 10 * 60_000);
    expect(logs.some((l) => l.includes('scheduled run') && l.includes('"failed":0'))).toBe(true);
    expect(logs.find((l) => l.includes(' info backtest '))).toContain('"summary":"written"');
    const replayed = await query('SELECT count(*)::int AS n FROM replayed_forecasts WHERE origin_hour < $1', [
      new Date(nowHour - 9 * DAY_MS).toISOString(),
    ]);
    expect(replayed[0]?.n).toBe(72);

    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request('https://gas.test/api/forecast-accuracy?window=30d'),
      workerEnv,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    const { citation, tier, window, source, ...figures } = ForecastAccuracyResponseSchema.parse(
      await res.json(),
    );
    expect({ window, source }).toEqual({ window: '30d', source: 'backtest' });
    // The figures of the whole replay of the same history.
    expect(figures).toEqual(scoreForecasts(replayForecasts(hours, first)));
    expect(figures.origins).toBe(72);
  });
});
