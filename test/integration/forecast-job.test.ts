import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type ForecastJobResult, runForecastJob } from '../../cron/forecast-job';
import { createApp } from '../../functions/app';
import { GasPredictionsResponseSchema } from '../../lib/schemas/forecast';
import { getGasPredictions } from '../../lib/services/gas-predictions';
import { insertMainnetSnapshots } from '../../lib/store/history-writes';
import {
  type HourlyForecastRow,
  insertHourlyForecast,
  readScoredForecasts,
} from '../../lib/store/hourly-forecasts';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { snapshotsWithHourlyMeans } from '../helpers/hourly-snapshots';
import { clearHistory, countRows, ENGINE_KINDS, queryRows } from './helpers/history-engines';
import { useJobLab } from './helpers/job-lab';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MINUTE_MS = 60_000;

const jobs = useJobLab();
const { clock, now } = jobs;
const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

const depsOn = jobs.depsOn;

/** A stored forecast made in `originHour` that says every hour will cost `average` gwei. */
function flatForecast(originHour: number, average: number): HourlyForecastRow {
  return {
    originHour,
    issuedAt: originHour + 30_000,
    currentAverageGwei: average,
    currentReadAt: originHour + 25_000,
    currentSource: 'test',
    points: Array.from({ length: 24 }, (_, i) => ({
      timestamp: new Date(originHour + (i + 1) * HOUR_MS).toISOString(),
      low: average * 0.9,
      average,
      high: average * 1.2,
      confidence: 0.5,
    })),
    decision: {
      recommendation: 'send_now',
      expectedSavingsPct: 0,
      expectedGas: average,
      nextBestAt: new Date(originHour).toISOString(),
      confidence: 0.7,
    },
    usingFallbackData: false,
    dataPoints: 100,
  };
}

describe.each(ENGINE_KINDS)('hourly forecast job on %s', (kind) => {
  const engine = () => jobs.engine(kind);

  it('stores the 24-hour forecast the service serves, once under 100 overlapping runs', async () => {
    await engine().withDb(clearHistory);
    const deps = depsOn(engine());
    // A tick a second later must fall in the same hour: not in an hour's last 10 s (a CI run at
    // 20:59:59 crossed into the next hour and stored a second forecast, rightly).
    const left = HOUR_MS - (clock.ms % HOUR_MS);
    if (left < 10_000) clock.ms += left + 1_000;
    const firedAt = clock.ms;
    const results: ForecastJobResult[] = await Promise.all(
      Array.from({ length: 100 }, () => runForecastJob(deps, firedAt)),
    );
    expect(results.filter((r) => r.stored === 'written')).toHaveLength(1);
    expect(results.filter((r) => r.stored === 'exists')).toHaveLength(99);
    expect(await engine().withDb((db) => countRows(db, 'hourly_forecasts'))).toBe(1);
    // One forecast made for all of them: one reading, so no provider was asked twice (a slow first
    // answer may let the hedge ask a second provider once).
    for (const sim of jobs.up.mainnet)
      expect(sim.requests.byMethod.eth_feeHistory ?? 0).toBeLessThanOrEqual(1);

    // It is what GET /api/gas-predictions serves in that hour.
    const served = GasPredictionsResponseSchema.parse(
      await (await createApp(deps).request('/api/gas-predictions')).json(),
    );
    const [row] = await engine().withDb((db) =>
      queryRows(
        db,
        sql`SELECT origin_hour, current_average_gwei, current_source, points, decision, scored_at FROM hourly_forecasts`,
      ),
    );
    expect(new Date(row?.origin_hour as string).getTime()).toBe(hourOf(firedAt));
    expect(Number(row?.current_average_gwei)).toBe(served.current.average);
    expect(row?.current_source).toBe(served.current.source);
    const points = typeof row?.points === 'string' ? JSON.parse(row.points) : row?.points;
    expect(points).toEqual(
      served.predictions.map(({ timestamp, low, average, high, confidence }) => ({
        timestamp,
        low,
        average,
        high,
        confidence,
      })),
    );
    const decision = typeof row?.decision === 'string' ? JSON.parse(row.decision) : row?.decision;
    expect(decision).toMatchObject({
      recommendation: served.decision.recommendation,
      nextBestAt: served.decision.nextBestAt,
    });
    expect(row?.scored_at).toBeNull();

    // Later ticks in the hour find it stored and ask no upstream.
    const asked = jobs.up.all.reduce((n, sim) => n + sim.requests.total, 0);
    clock.ms = firedAt + 1_000;
    expect(await runForecastJob(deps, clock.ms)).toMatchObject({ stored: 'exists', scored: [] });
    expect(jobs.up.all.reduce((n, sim) => n + sim.requests.total, 0)).toBe(asked);
  });

  it('stores the forecast a request just made without asking any upstream again', async () => {
    await engine().withDb(clearHistory);
    const deps = depsOn(engine());
    const served = GasPredictionsResponseSchema.parse(
      await (await createApp(deps).request('/api/gas-predictions')).json(),
    );
    const asked = jobs.up.all.reduce((n, sim) => n + sim.requests.total, 0);
    expect(await runForecastJob(deps, clock.ms)).toMatchObject({ stored: 'written' });
    expect(jobs.up.all.reduce((n, sim) => n + sim.requests.total, 0)).toBe(asked);
    const [row] = await engine().withDb((db) =>
      queryRows(db, sql`SELECT points->0->>'average' AS first FROM hourly_forecasts`),
    );
    expect(Number(row?.first)).toBe(served.predictions[0]?.average);
  });

  it('stores one forecast when two hosts (own caches, one store) run the hour at once', async () => {
    await engine().withDb(clearHistory);
    const hosts = [depsOn(engine()), depsOn(engine())];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runForecastJob(hosts[i % 2] as TestDeps, clock.ms)),
    );
    expect(results.filter((r) => r.stored === 'written')).toHaveLength(1);
    expect(await engine().withDb((db) => countRows(db, 'hourly_forecasts'))).toBe(1);
  });

  it('drops a forecast cached in the previous hour and stores one made in the hour of the tick', async () => {
    await engine().withDb(clearHistory);
    const deps = depsOn(engine());
    const hour = hourOf(clock.ms) + HOUR_MS;
    clock.ms = hour - 10_000;
    const before = await getGasPredictions(deps, '24h');
    expect(Date.parse(before.predictions[0]?.timestamp ?? '')).toBe(hour);
    clock.ms = hour + 15_000;
    expect(await runForecastJob(deps, clock.ms)).toMatchObject({ originHour: hour, stored: 'written' });
    const [row] = await engine().withDb((db) =>
      queryRows(db, sql`SELECT points->0->>'timestamp' AS first FROM hourly_forecasts`),
    );
    expect(Date.parse(String(row?.first))).toBe(hour + HOUR_MS);
  });

  it('scores a forecast once, from the stored hourly means, after its 24 hours have happened', async () => {
    await engine().withDb(clearHistory);
    const origin = hourOf(Date.now()) - 25 * HOUR_MS;
    const meanOf = (hourStart: number) => 10 + ((hourStart - origin) / HOUR_MS) * 0.25;
    // The day before the origin and its 24 hours; hour 7 after it was never stored.
    const rows = snapshotsWithHourlyMeans(origin - 24 * HOUR_MS, origin + 25 * HOUR_MS, meanOf).filter(
      (row) => hourOf(row.slotStart) !== origin + 7 * HOUR_MS,
    );
    await engine().withDb((db) => insertMainnetSnapshots(db, rows));
    await engine().withDb((db) => insertHourlyForecast(db, flatForecast(origin, 12)));
    const deps = depsOn(engine());

    // Its last hour ended 4 minutes ago: its last snapshots may still be coming.
    clock.ms = origin + 25 * HOUR_MS + 4 * MINUTE_MS;
    expect((await runForecastJob(deps, clock.ms)).scored).toEqual([]);

    clock.ms = origin + 25 * HOUR_MS + 6 * MINUTE_MS;
    const results = await Promise.all(Array.from({ length: 50 }, () => runForecastJob(deps, clock.ms)));
    expect(results.flatMap((r) => r.scored)).toEqual([origin]);
    expect((await runForecastJob(deps, clock.ms + MINUTE_MS)).scored).toEqual([]);

    const { forecasts, latestScoredAt } = await engine().withDb((db) => readScoredForecasts(db, origin - 1));
    expect(forecasts).toHaveLength(1);
    expect(latestScoredAt).toBe(clock.ms);
    const [scored] = forecasts;
    expect(scored?.current).toBe(12);
    const expected = (k: number) => Number(meanOf(origin + k * HOUR_MS).toFixed(9));
    expect(scored?.outcome.actual.map((v) => (v === null ? null : Number(v.toFixed(9))))).toEqual(
      Array.from({ length: 24 }, (_, i) => (i + 1 === 7 ? null : expected(i + 1))),
    );
    expect(scored?.outcome.sameHourYesterday.map((v) => (v === null ? null : Number(v.toFixed(9))))).toEqual(
      Array.from({ length: 24 }, (_, i) => expected(i + 1 - 24)),
    );
  });

  it('prunes forecasts older than 35 days when it writes, and never scores them', async () => {
    await engine().withDb(clearHistory);
    const old = hourOf(clock.ms) - 36 * DAY_MS;
    await engine().withDb((db) => insertHourlyForecast(db, flatForecast(old, 10)));
    const result = await runForecastJob(depsOn(engine()), clock.ms);
    expect(result).toMatchObject({ stored: 'written', scored: [], pruned: 1 });
    expect(await engine().withDb((db) => countRows(db, 'hourly_forecasts'))).toBe(1);
  });

  it('stores nothing and reports no failure when no reading exists; the next tick stores it', async () => {
    await engine().withDb(clearHistory);
    for (const sim of jobs.up.mainnet) sim.fault('refuse');
    jobs.up.etherscan.fault('http-500');
    const deps = depsOn(engine());
    expect(await runForecastJob(deps, clock.ms)).toMatchObject({ stored: 'skipped', scored: [] });
    expect(deps.logs.some((line) => line.includes('forecast: not stored this tick'))).toBe(true);
    await jobs.up.reset();
    clock.ms += 31_000;
    expect(await runForecastJob(deps, clock.ms)).toMatchObject({ stored: 'written' });
  });
});

describe('hourly forecast job when the store fails', () => {
  it('rejects with a store error naming the hour, so the scheduler reports it, and leaks no address', async () => {
    const deps = createTestDeps(jobs.up.env, {
      now,
      withDb: () =>
        Promise.reject(new Error('connect ECONNREFUSED postgres://u:pw-secret@10.1.2.3:5432/gas')),
    });
    await expect(runForecastJob(deps, clock.ms)).rejects.toThrow(/forecast of .* not stored or scored/);
    expect(deps.logs.join('\n')).not.toContain('pw-secret');
  });
});
