import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type BacktestJobResult, runBacktestJob } from '../../cron/backtest-job';
import { SCORING_DELAY_MS } from '../../cron/forecast-job';
import type { AppDeps } from '../../lib/deps';
import { scoreForecasts } from '../../lib/forecast/accuracy';
import { replayForecasts } from '../../lib/forecast/accuracy-replay';
import { forecastGas } from '../../lib/forecast/forecast-gas';
import { forecastModelVersion } from '../../lib/forecast/model-version';
import { DEFAULT_FORECAST_PARAMS, type ForecastParams } from '../../lib/forecast/params';
import { getForecastAccuracy } from '../../lib/services/forecast-accuracy';
import {
  insertBacktestSummaries,
  readBacktestSummary,
  readReplayedForecasts,
} from '../../lib/store/backtest-replays';
import type { DatabaseEngine } from '../../lib/store/engines';
import { readHourlyHistory } from '../../lib/store/history-queries';
import { insertMainnetSnapshots } from '../../lib/store/history-writes';
import { slotStartOf } from '../../lib/store/slots';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { snapshotsWithHourlyMeans } from '../helpers/hourly-snapshots';
import {
  clearHistory,
  countRows,
  ENGINE_KINDS,
  type EngineLab,
  queryRows,
  startEngineLab,
} from './helpers/history-engines';

// Every forecast computed in this file is counted: the job replays only what is not yet stored.
vi.mock('../../lib/forecast/forecast-gas', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/forecast/forecast-gas')>();
  return { ...actual, forecastGas: vi.fn(actual.forecastGas) };
});
const forecasts = () => vi.mocked(forecastGas).mock.calls.length;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
// Ten minutes into an hour: the hour before's last outcome is final (past the scoring delay).
const NOW = slotStartOf(Date.UTC(2026, 10, 21, 16, 10, 0)) + 12_000;
const NOW_HOUR = Math.floor(NOW / HOUR_MS) * HOUR_MS;
const iso = (ms: number) => new Date(ms).toISOString();

// A daily rhythm, a drift and deterministic noise, so that the model waits sometimes.
const meanOf = (hourStart: number) => {
  const i = hourStart / HOUR_MS;
  const noise = Math.sin(i * 12.9898) * 43758.5453;
  return (
    (10 + 4 * Math.sin((i / 24) * 2 * Math.PI) + (i % 240) / 48) *
    (1 + 0.2 * (noise - Math.floor(noise) - 0.5))
  );
};

let lab: EngineLab;
beforeAll(async () => {
  lab = await startEngineLab();
});
afterAll(async () => {
  await lab?.close();
});

function depsAt(engine: DatabaseEngine, at: number, extra: Partial<AppDeps> = {}): TestDeps {
  return createTestDeps({}, { withDb: engine.withDb, now: () => at, ...extra });
}

/** Ten days of imported history ending now: origins from a week after its first hour can be replayed. */
async function importTenDays(engine: DatabaseEngine) {
  await engine.withDb((db) =>
    insertMainnetSnapshots(db, snapshotsWithHourlyMeans(NOW_HOUR - 10 * DAY_MS, NOW, meanOf)),
  );
}

/** Parameters a deployment might retune: the confidence and the decision's rules change. */
const RETUNED: Partial<ForecastParams> = {
  priorSigma: 0.1,
  waitMinSaving: 0.02,
  waitMaxDearerProbability: 0.9,
};

/** Runs `fn` as a process deployed with the forecaster retuned would, then restores the defaults. */
async function asRetunedDeployment(fn: () => Promise<void>): Promise<void> {
  const shipped = { ...DEFAULT_FORECAST_PARAMS };
  Object.assign(DEFAULT_FORECAST_PARAMS as ForecastParams, RETUNED);
  try {
    await fn();
  } finally {
    Object.assign(DEFAULT_FORECAST_PARAMS as ForecastParams, shipped);
  }
}

/** From a week after the first stored hour to the last whose 24 hours ended before this hour began. */
const ORIGINS = 240 - 168 - 24;

describe.each(ENGINE_KINDS)('hourly back-test job on %s', (kind) => {
  let engine: DatabaseEngine;
  beforeAll(async () => {
    engine = await lab.open(kind);
  });
  beforeEach(async () => {
    await engine.withDb(clearHistory);
  });

  it('stores the replay of every origin once, and one summary per window, under 8 overlapping runs', async () => {
    await importTenDays(engine);
    const before = forecasts();
    const results: BacktestJobResult[] = await Promise.all(
      Array.from({ length: 8 }, () => runBacktestJob(depsAt(engine, NOW), NOW)),
    );
    expect(results.reduce((n, r) => n + r.replayed, 0)).toBe(ORIGINS);
    expect(results.filter((r) => r.summary === 'written')).toHaveLength(1);
    expect(results.every((r) => r.hour === NOW_HOUR && r.backlog === 0)).toBe(true);
    expect(await engine.withDb((db) => countRows(db, 'replayed_forecasts'))).toBe(ORIGINS);
    const summaries = await engine.withDb((db) =>
      queryRows(db, sql`SELECT accuracy_window AS w, hour FROM backtest_summaries ORDER BY accuracy_window`),
    );
    expect(summaries.map((row) => [row.w, new Date(row.hour as string).getTime()])).toEqual([
      ['30d', NOW_HOUR],
      ['7d', NOW_HOUR],
    ]);
    // Overlapping runs may each replay what none had stored yet; the next tick computes nothing.
    expect(forecasts() - before).toBeGreaterThanOrEqual(ORIGINS);
    const settled = forecasts();
    expect(await runBacktestJob(depsAt(engine, NOW + 60_000), NOW + 60_000)).toEqual({
      hour: NOW_HOUR,
      replayed: 0,
      backlog: 0,
      summary: 'exists',
      pruned: 0,
    });
    expect(forecasts()).toBe(settled);
  });

  it('stores the figures the whole replay of the same stored history gives', async () => {
    await importTenDays(engine);
    await runBacktestJob(depsAt(engine, NOW), NOW);
    const { hours } = await engine.withDb((db) => readHourlyHistory(db, 0));
    const complete = hours.filter((point) => point.time < NOW_HOUR);
    const whole = replayForecasts(complete, NOW_HOUR - 30 * DAY_MS + 1);
    expect(whole).toHaveLength(ORIGINS);
    // Each stored origin is the replayed forecast as the scorer reads it.
    const stored = await engine.withDb((db) => readReplayedForecasts(db, 0, forecastModelVersion()));
    expect(stored.map((f) => f.originHour)).toEqual(whole.map((f) => f.originHour));
    stored.forEach((forecast, i) => {
      const replayed = whole[i];
      expect(forecast.current).toBe(replayed?.current);
      expect(forecast.points).toEqual(
        replayed?.points.map(({ average, confidence }) => ({ average, confidence })),
      );
      expect(forecast.decision).toEqual({
        recommendation: replayed?.decision.recommendation,
        nextBestAt: replayed?.decision.nextBestAt,
      });
      expect(forecast.outcome).toEqual(replayed?.outcome);
    });
    for (const [window, days] of [
      ['7d', 7],
      ['30d', 30],
    ] as const) {
      const summary = await engine.withDb((db) =>
        readBacktestSummary(db, window, NOW - days * DAY_MS, forecastModelVersion()),
      );
      const expected = scoreForecasts(whole.filter((f) => f.originHour > NOW_HOUR - days * DAY_MS));
      expect(summary).toEqual({ hour: NOW_HOUR, figures: expected });
      expect(expected.decision?.waits).toBeGreaterThan(0);
    }
  });

  it('replays a backlog a batch per tick and summarises once it is done', async () => {
    await importTenDays(engine);
    const runs: BacktestJobResult[] = [];
    for (const second of [0, 60, 120]) {
      runs.push(await runBacktestJob(depsAt(engine, NOW + second * 1_000), NOW + second * 1_000, 20));
    }
    expect(runs.map(({ replayed, backlog, summary }) => ({ replayed, backlog, summary }))).toEqual([
      { replayed: 20, backlog: ORIGINS - 20, summary: 'pending' },
      { replayed: 20, backlog: ORIGINS - 40, summary: 'pending' },
      { replayed: ORIGINS - 40, backlog: 0, summary: 'written' },
    ]);
    // Each batch came from what was left: every origin stored once, by one of the three runs.
    const byRun = await engine.withDb((db) =>
      queryRows(
        db,
        sql`SELECT replayed_at AS at, count(*)::int AS n FROM replayed_forecasts GROUP BY 1 ORDER BY 1`,
      ),
    );
    expect(byRun.map((row) => row.n)).toEqual([20, 20, ORIGINS - 40]);
    expect(
      (await engine.withDb((db) => readBacktestSummary(db, '30d', 0, forecastModelVersion())))?.figures
        .origins,
    ).toBe(ORIGINS);
  });

  it('replays only the new hour the next hour, and scores the windows again', async () => {
    await importTenDays(engine);
    await runBacktestJob(depsAt(engine, NOW), NOW);
    // The next hour's data: the hour under way at NOW, completed.
    await engine.withDb((db) =>
      insertMainnetSnapshots(db, snapshotsWithHourlyMeans(NOW, NOW_HOUR + HOUR_MS, meanOf)),
    );
    const before = forecasts();
    const next = await runBacktestJob(depsAt(engine, NOW + HOUR_MS), NOW + HOUR_MS);
    expect(next).toMatchObject({ hour: NOW_HOUR + HOUR_MS, replayed: 1, backlog: 0, summary: 'written' });
    expect(forecasts() - before).toBe(1);
    const summary = await engine.withDb((db) => readBacktestSummary(db, '7d', 0, forecastModelVersion()));
    expect(summary?.hour).toBe(NOW_HOUR + HOUR_MS);
    expect(summary?.figures.origins).toBe(ORIGINS + 1);
    expect(summary?.figures.scoredTo).toBe(iso(NOW_HOUR - 24 * HOUR_MS));
  });

  it('waits for the scoring delay before judging the hour that just ended', async () => {
    await importTenDays(engine);
    const early = NOW_HOUR + SCORING_DELAY_MS - 1_000;
    expect((await runBacktestJob(depsAt(engine, early), early)).hour).toBe(NOW_HOUR - HOUR_MS);
    const summary = await engine.withDb((db) => readBacktestSummary(db, '30d', 0, forecastModelVersion()));
    expect(summary?.figures.origins).toBe(ORIGINS - 1);
    expect(summary?.figures.scoredTo).toBe(iso(NOW_HOUR - 26 * HOUR_MS));
  });

  it('stores no summary for an empty store, so the endpoint says nothing was scored, never made-up figures', async () => {
    const deps = depsAt(engine, NOW);
    const result = await runBacktestJob(deps, NOW);
    expect(result).toEqual({ hour: NOW_HOUR, replayed: 0, backlog: 0, summary: 'none', pruned: 0 });
    // It repeats every tick until there is history to replay: no log line each time.
    expect(deps.logs.join('\n')).not.toContain('backtest');
    expect(await engine.withDb((db) => countRows(db, 'backtest_summaries'))).toBe(0);
    const accuracy = await getForecastAccuracy(depsAt(engine, NOW), '30d');
    expect(accuracy).toMatchObject({ source: 'live', ...scoreForecasts([]) });
  });

  it('scores history imported after an empty tick within the same hour, on the next ticks', async () => {
    expect((await runBacktestJob(depsAt(engine, NOW), NOW)).summary).toBe('none');
    await importTenDays(engine);
    const later = NOW + 5 * 60_000;
    expect(await runBacktestJob(depsAt(engine, later), later)).toMatchObject({
      hour: NOW_HOUR,
      replayed: ORIGINS,
      backlog: 0,
      summary: 'written',
    });
    const accuracy = await getForecastAccuracy(depsAt(engine, later), '7d');
    expect(accuracy).toMatchObject({ source: 'backtest', origins: ORIGINS });
  });

  it('replays every hour again after a deployment changes the model, a batch per tick, serving no mix meanwhile', async () => {
    await importTenDays(engine);
    await runBacktestJob(depsAt(engine, NOW), NOW);
    const oldModel = forecastModelVersion();
    const oldFigures = (await getForecastAccuracy(depsAt(engine, NOW), '30d')) as object;
    const complete = (await engine.withDb((db) => readHourlyHistory(db, 0))).hours.filter(
      (point) => point.time < NOW_HOUR,
    );
    const whole = replayForecasts(complete, NOW_HOUR - 30 * DAY_MS + 1, undefined, {
      ...DEFAULT_FORECAST_PARAMS,
      ...RETUNED,
    });
    const expected = scoreForecasts(whole);
    // The retuned model says other things than the shipped one.
    expect(oldFigures).toMatchObject({ source: 'backtest', origins: ORIGINS });
    expect(oldFigures).not.toMatchObject(expected);

    await asRetunedDeployment(async () => {
      expect(forecastModelVersion()).not.toBe(oldModel);
      const before = forecasts();
      const runs: BacktestJobResult[] = [];
      for (const minute of [1, 2, 3]) {
        const at = NOW + minute * 60_000;
        runs.push(await runBacktestJob(depsAt(engine, at), at, 20));
        // Until the new model has replayed every hour, its figures are the live ones (none yet here),
        // never the old model's nor a mix of both.
        if (minute < 3) {
          const accuracy = await getForecastAccuracy(depsAt(engine, at), '30d');
          expect(accuracy).toMatchObject({ source: 'live', ...scoreForecasts([]) });
        }
      }
      expect(runs.map(({ replayed, backlog, summary }) => ({ replayed, backlog, summary }))).toEqual([
        { replayed: 20, backlog: ORIGINS - 20, summary: 'pending' },
        { replayed: 20, backlog: ORIGINS - 40, summary: 'pending' },
        { replayed: ORIGINS - 40, backlog: 0, summary: 'written' },
      ]);
      expect(forecasts() - before).toBe(ORIGINS);
      // Each hour's replay replaced, not added beside the old one.
      const versions = await engine.withDb((db) =>
        queryRows(db, sql`SELECT model_version AS v, count(*)::int AS n FROM replayed_forecasts GROUP BY 1`),
      );
      expect(versions).toEqual([{ v: forecastModelVersion(), n: ORIGINS }]);
      const at = NOW + 3 * 60_000;
      const accuracy = await getForecastAccuracy(depsAt(engine, at), '30d');
      const { window, source, updatedAt, ...figures } = accuracy;
      expect(source).toBe('backtest');
      expect(figures).toEqual(expected);
    });
  });

  it('replaces each replay of another model once, and summarises once, under 8 overlapping runs', async () => {
    await importTenDays(engine);
    await runBacktestJob(depsAt(engine, NOW), NOW);
    await asRetunedDeployment(async () => {
      const at = NOW + 60_000;
      const results = await Promise.all(
        Array.from({ length: 8 }, () => runBacktestJob(depsAt(engine, at), at)),
      );
      expect(results.reduce((n, r) => n + r.replayed, 0)).toBe(ORIGINS);
      expect(results.filter((r) => r.summary === 'written')).toHaveLength(1);
      const summaries = await engine.withDb((db) =>
        queryRows(
          db,
          sql`SELECT count(*)::int AS n FROM backtest_summaries WHERE model_version = ${forecastModelVersion()}`,
        ),
      );
      expect(summaries).toEqual([{ n: 2 }]);
      expect(await engine.withDb((db) => countRows(db, 'replayed_forecasts'))).toBe(ORIGINS);
    });
  });

  it('replays history imported after the hour was summarised within the hour, and serves its figures', async () => {
    await importTenDays(engine);
    expect(await runBacktestJob(depsAt(engine, NOW), NOW)).toMatchObject({ summary: 'written' });
    const summarised = await engine.withDb((db) => readReplayedForecasts(db, 0, forecastModelVersion()));
    // Minutes later an operator imports the ten days before: 240 more hours to replay.
    await engine.withDb((db) =>
      insertMainnetSnapshots(
        db,
        snapshotsWithHourlyMeans(NOW_HOUR - 20 * DAY_MS, NOW_HOUR - 10 * DAY_MS, meanOf),
      ),
    );
    const runs: BacktestJobResult[] = [];
    for (const minute of [5, 6, 7]) {
      const at = NOW + minute * 60_000;
      runs.push(await runBacktestJob(depsAt(engine, at), at));
      // Meanwhile the summary made before the import is served: complete for the history it saw.
      if (minute < 7) {
        expect(await getForecastAccuracy(depsAt(engine, at), '30d')).toMatchObject({
          source: 'backtest',
          origins: ORIGINS,
        });
      }
    }
    expect(
      runs.map(({ hour, replayed, backlog, summary }) => ({ hour, replayed, backlog, summary })),
    ).toEqual([
      { hour: NOW_HOUR, replayed: 100, backlog: 140, summary: 'pending' },
      { hour: NOW_HOUR, replayed: 100, backlog: 40, summary: 'pending' },
      { hour: NOW_HOUR, replayed: 40, backlog: 0, summary: 'written' },
    ]);
    // The hours the import made replayable, replayed from the whole stored history; the hours replayed
    // before keep their replay from the history stored then.
    const { hours } = await engine.withDb((db) => readHourlyHistory(db, 0));
    const added = replayForecasts(
      hours.filter((point) => point.time < NOW_HOUR),
      NOW_HOUR - 30 * DAY_MS + 1,
      summarised[0]?.originHour,
    );
    expect(added).toHaveLength(240);
    const at = NOW + 7 * 60_000;
    const { window, source, updatedAt, ...figures } = await getForecastAccuracy(depsAt(engine, at), '30d');
    expect(source).toBe('backtest');
    expect(figures).toEqual(scoreForecasts([...added, ...summarised]));
    // Caught up: the next tick computes nothing.
    const settled = forecasts();
    expect(await runBacktestJob(depsAt(engine, at + 60_000), at + 60_000)).toMatchObject({
      replayed: 0,
      summary: 'exists',
    });
    expect(forecasts()).toBe(settled);
  });

  it('prunes replayed forecasts and summaries older than 35 days when it writes', async () => {
    const old = NOW_HOUR - 36 * DAY_MS;
    await engine.withDb(async (db) => {
      const basis = { modelVersion: forecastModelVersion(), historyHours: 0 };
      const figures = { '7d': scoreForecasts([]), '30d': scoreForecasts([]) };
      await insertBacktestSummaries(db, old, basis, figures, old);
      await db.execute(
        sql`INSERT INTO replayed_forecasts VALUES (${iso(old)}, ${iso(old)}, 10, '[]', '{}', '{}')`,
      );
    });
    expect(await runBacktestJob(depsAt(engine, NOW), NOW)).toMatchObject({ summary: 'none', pruned: 3 });
    expect(await engine.withDb((db) => countRows(db, 'replayed_forecasts'))).toBe(0);
    expect(await engine.withDb((db) => countRows(db, 'backtest_summaries'))).toBe(0);
  });
});

describe('hourly back-test job when the store fails', () => {
  it('rejects with a store error naming the hour, so the scheduler reports it, and leaks no address', async () => {
    const deps = createTestDeps(
      {},
      {
        now: () => NOW,
        withDb: () =>
          Promise.reject(new Error('connect ECONNREFUSED postgres://u:pw-secret@10.1.2.3:5432/gas')),
      },
    );
    await expect(runBacktestJob(deps, NOW)).rejects.toThrow(`back-test of ${iso(NOW_HOUR)} not stored`);
    expect(deps.logs.join('\n')).not.toMatch(/pw-secret|10\.1\.2\.3/);
  });
});
