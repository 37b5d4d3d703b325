import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runBacktestJob } from '../../cron/backtest-job';
import { runForecastJob } from '../../cron/forecast-job';
import { createApp } from '../../functions/app';
import type { AppDeps } from '../../lib/deps';
import { NOTHING_SCORED, scoreForecasts } from '../../lib/forecast/accuracy';
import { replayForecasts } from '../../lib/forecast/accuracy-replay';
import { forecastGas } from '../../lib/forecast/forecast-gas';
import { forecastModelVersion } from '../../lib/forecast/model-version';
import { outputSchemaOf } from '../../lib/mcp/tool';
import { forecastAccuracyTool } from '../../lib/mcp/tools/forecast-accuracy';
import { ForecastAccuracyResponseSchema } from '../../lib/schemas/forecast-accuracy';
import { LIVE_MIN_FORECASTS } from '../../lib/services/forecast-accuracy';
import type { WithDb } from '../../lib/store/database';
import type { DatabaseEngine } from '../../lib/store/engines';
import { readHourlyHistory } from '../../lib/store/history-queries';
import { insertMainnetSnapshots } from '../../lib/store/history-writes';
import { type HourlyForecastRow, insertHourlyForecast } from '../../lib/store/hourly-forecasts';
import { slotStartOf } from '../../lib/store/slots';
import { createTestDeps } from '../helpers/deps';
import { snapshotsWithHourlyMeans } from '../helpers/hourly-snapshots';
import { clearHistory, ENGINE_KINDS, type EngineLab, startEngineLab } from './helpers/history-engines';

// Every forecast computed in this file is counted: a request must compute none.
vi.mock('../../lib/forecast/forecast-gas', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/forecast/forecast-gas')>();
  return { ...actual, forecastGas: vi.fn(actual.forecastGas) };
});
const forecasts = () => vi.mocked(forecastGas).mock.calls.length;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const NOW = slotStartOf(Date.UTC(2026, 10, 21, 16, 5, 0)) + 12_000;
const NOW_HOUR = Math.floor(NOW / HOUR_MS) * HOUR_MS;
const iso = (ms: number) => new Date(ms).toISOString();

let lab: EngineLab;
beforeAll(async () => {
  lab = await startEngineLab();
});
afterAll(async () => {
  await lab?.close();
});

/** An app on `withDb` at NOW whose upstreams all fail at once (these figures come from the store only). */
function appOn(withDb: WithDb, extra: Partial<AppDeps> = {}) {
  const deps = createTestDeps(
    { PUBLIC_BASE_URL: 'https://gas.test' },
    { withDb, now: () => NOW, fetch: () => Promise.reject(new Error('offline')), ...extra },
  );
  return { app: createApp(deps), deps };
}

async function getAccuracy(withDb: WithDb, query = '') {
  const res = await appOn(withDb).app.request(`/api/forecast-accuracy${query}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('Cache-Control')).toBe('public, max-age=300, s-maxage=300');
  return ForecastAccuracyResponseSchema.parse(await res.json());
}

/** A stored forecast made in `originHour`: every hour at 12 gwei with confidence 0.55, from a reading of 10. */
function storedForecast(originHour: number): HourlyForecastRow {
  return {
    originHour,
    issuedAt: originHour + 30_000,
    currentAverageGwei: 10,
    currentReadAt: originHour + 25_000,
    currentSource: 'test',
    points: Array.from({ length: 24 }, (_, i) => ({
      timestamp: iso(originHour + (i + 1) * HOUR_MS),
      low: 11,
      average: 12,
      high: 13,
      confidence: 0.55,
    })),
    decision: {
      recommendation: 'send_now',
      expectedSavingsPct: 0,
      expectedGas: 10,
      nextBestAt: iso(originHour),
      confidence: 0.8,
    },
    usingFallbackData: false,
    dataPoints: 1_000,
  };
}

/** Ten days of imported history ending now, the hourly mean of the average tier following `meanOf`. */
async function importTenDays(engine: DatabaseEngine, meanOf: (hourStart: number) => number) {
  await engine.withDb((db) =>
    insertMainnetSnapshots(db, snapshotsWithHourlyMeans(NOW_HOUR - 10 * DAY_MS, NOW, meanOf)),
  );
}

/**
 * Stores `count` forecasts, the newest 26 hours before now, plus one not yet due (its last hour ended
 * under 5 minutes ago), and lets the scheduled job score them.
 */
async function storeScoredForecasts(engine: DatabaseEngine, count: number) {
  const origins = Array.from({ length: count }, (_, i) => NOW_HOUR - (26 + i) * HOUR_MS);
  for (const origin of [...origins, NOW_HOUR - 25 * HOUR_MS]) {
    await engine.withDb((db) => insertHourlyForecast(db, storedForecast(origin)));
  }
  const { deps } = appOn(engine.withDb);
  const result = await runForecastJob(deps, NOW);
  expect(result.stored).toBe('skipped');
  expect(result.scored.sort()).toEqual([...origins].sort());
  return origins;
}

/** The scheduler's back-test run of the hour before NOW's (NOW is inside the 5-minute scoring delay). */
async function runBacktest(engine: DatabaseEngine, summary: 'written' | 'none' = 'written') {
  const result = await runBacktestJob(appOn(engine.withDb).deps, NOW);
  expect(result).toMatchObject({ hour: NOW_HOUR - HOUR_MS, backlog: 0, summary });
}

const daily = (hourStart: number) => 10 + 4 * Math.sin(((hourStart / HOUR_MS) % 24) * (Math.PI / 12));

describe.each(ENGINE_KINDS)('GET /api/forecast-accuracy on %s', (kind) => {
  let engine: DatabaseEngine;
  beforeAll(async () => {
    engine = await lab.open(kind);
  });
  beforeEach(async () => {
    await engine.withDb(clearHistory);
  });

  it.each([
    ['before', false],
    ['after', true],
  ])('answers origins 0 and null figures from an empty store, %s the scheduled back-test', async (_, ran) => {
    // With nothing to replay the job stores no summary (the next tick looks again).
    if (ran) await runBacktest(engine, 'none');
    const body = await getAccuracy(engine.withDb);
    expect(body).toEqual({
      citation: `Data from Gas Fee API (https://gas.test), free public Ethereum gas data, updated ${iso(NOW)}`,
      tier: 'free',
      window: '7d',
      source: 'live',
      ...NOTHING_SCORED,
    });
  });

  it('answers origins 0 and null figures from imported history before the first scheduled back-test', async () => {
    await importTenDays(engine, daily);
    const before = forecasts();
    for (const window of ['7d', '30d'] as const) {
      const body = await getAccuracy(engine.withDb, `?window=${window}`);
      expect(body).toMatchObject({ window, source: 'live', ...NOTHING_SCORED });
    }
    // Nothing was replayed on the request path.
    expect(forecasts()).toBe(before);
  });

  it('serves the back-test the scheduled job stored when no live forecast exists (source backtest)', async () => {
    await importTenDays(engine, daily);
    await runBacktest(engine);
    const { hours } = await engine.withDb((db) => readHourlyHistory(db, 0));
    // What the in-process replay of the same stored history gave, for the hour the job summarised.
    const whole = replayForecasts(
      hours.filter((point) => point.time < NOW_HOUR - HOUR_MS),
      NOW_HOUR - 31 * DAY_MS,
    );
    const before = forecasts();
    for (const [window, days] of [
      ['7d', 7],
      ['30d', 30],
    ] as const) {
      const body = await getAccuracy(engine.withDb, `?window=${window}`);
      expect(body.window).toBe(window);
      expect(body.source).toBe('backtest');
      // From a week after the first stored hour to the last hour whose 24 hours were over when the
      // job ran (it judges an hour 5 minutes after it ends).
      expect(body.origins).toBe(47);
      expect(body.scoredFrom).toBe(iso(NOW_HOUR - 72 * HOUR_MS));
      expect(body.scoredTo).toBe(iso(NOW_HOUR - 26 * HOUR_MS));
      const { citation, tier, window: _, source, ...figures } = body;
      expect(figures).toEqual(
        scoreForecasts(whole.filter((f) => f.originHour > NOW_HOUR - HOUR_MS - days * DAY_MS)),
      );
      expect(body.mae?.model).toBeGreaterThan(0);
      // A clean daily rhythm: the model beats both baselines.
      expect(body.mae?.model).toBeLessThan(body.mae?.persistence ?? 0);
      expect(body.maeByLeadHours?.map((l) => l.hoursAhead)).toEqual(
        Array.from({ length: 24 }, (_, i) => i + 1),
      );
      expect((body.calibration ?? []).reduce((n, b) => n + b.count, 0)).toBe(47 * 24);
      expect(body.decision?.oracleSavingPct).toBeGreaterThan(0);
      expect(citation).toMatch(new RegExp(`updated ${iso(NOW_HOUR - HOUR_MS)}$`));
    }
    // The figures were read, not replayed: no forecast computed, and the same answer with the
    // history the replay came from deleted.
    expect(forecasts()).toBe(before);
    const served = await getAccuracy(engine.withDb, '?window=30d');
    await engine.withDb((db) => db.execute(sql`TRUNCATE mainnet_snapshots`));
    expect(await getAccuracy(engine.withDb, '?window=30d')).toEqual(served);
    expect(forecasts()).toBe(before);
  });

  it('serves no back-test summary made before the window began', async () => {
    await importTenDays(engine, daily);
    await runBacktest(engine);
    // The same summary, read eight days later: outside 7d, still inside 30d.
    const later = appOn(engine.withDb, { now: () => NOW + 8 * DAY_MS }).app;
    const read = async (query: string) =>
      ForecastAccuracyResponseSchema.parse(
        await (await later.request(`/api/forecast-accuracy${query}`)).json(),
      );
    expect(await read('?window=7d')).toMatchObject({ source: 'live', ...NOTHING_SCORED });
    expect(await read('?window=30d')).toMatchObject({ source: 'backtest', origins: 47 });
  });

  it.each([
    // The summary (made at NOW_HOUR - 1 h) scored origins from NOW_HOUR - 72 h: 7d of the window
    // after it holds them all for 4 days and part of an hour; it is served 3 hours longer, then not.
    [4 * DAY_MS + 3 * HOUR_MS + 50 * 60_000, 'backtest'],
    [4 * DAY_MS + 4 * HOUR_MS + 5 * 60_000, 'live'],
    [5 * DAY_MS + 23 * HOUR_MS, 'live'],
  ])(
    'serves a back-test summary while the window holds the forecasts it scored, give or take 3 hours (%i ms later: %s)',
    async (later, source) => {
      await importTenDays(engine, daily);
      await runBacktest(engine);
      const { app } = appOn(engine.withDb, { now: () => NOW + later });
      const body = ForecastAccuracyResponseSchema.parse(
        await (await app.request('/api/forecast-accuracy')).json(),
      );
      expect(body.source).toBe(source);
      if (source === 'live') expect(body).toMatchObject(NOTHING_SCORED);
      else expect(body.scoredFrom).toBe(iso(NOW_HOUR - 72 * HOUR_MS));
    },
  );

  it.each([
    ['another model (before a deployment that changed the forecaster)', '1-00000000'],
    ['the code before model versions (unversioned)', 'unversioned'],
  ])('serves no back-test summary of %s', async (_, version) => {
    await importTenDays(engine, daily);
    await runBacktest(engine);
    expect((await getAccuracy(engine.withDb)).source).toBe('backtest');
    await engine.withDb((db) => db.execute(sql`UPDATE backtest_summaries SET model_version = ${version}`));
    expect(await getAccuracy(engine.withDb)).toMatchObject({ source: 'live', ...NOTHING_SCORED });
  });

  it('serves no stored summary that does not fit the response (another version of the code wrote it)', async () => {
    await engine.withDb((db) =>
      db.execute(
        sql`INSERT INTO backtest_summaries (accuracy_window, hour, model_version, computed_at, figures)
          VALUES ('7d', ${iso(NOW_HOUR)}, ${forecastModelVersion()}, ${iso(NOW)}, '{"origins": "many"}')`,
      ),
    );
    const { app, deps } = appOn(engine.withDb);
    const body = ForecastAccuracyResponseSchema.parse(
      await (await app.request('/api/forecast-accuracy')).json(),
    );
    expect(body).toMatchObject({ source: 'live', ...NOTHING_SCORED });
    expect(deps.logs.some((line) => line.includes('stored back-test summary does not fit'))).toBe(true);
  });

  it(`answers from the stored live forecasts once ${LIVE_MIN_FORECASTS} have been scored (source live)`, async () => {
    await importTenDays(engine, () => 10);
    const origins = await storeScoredForecasts(engine, LIVE_MIN_FORECASTS);
    // A stored back-test scoring more forecasts does not outrank enough live ones.
    await runBacktest(engine);
    const body = await getAccuracy(engine.withDb);
    expect(body.source).toBe('live');
    expect(body.origins).toBe(LIVE_MIN_FORECASTS);
    expect(body.scoredFrom).toBe(iso(Math.min(...origins)));
    expect(body.scoredTo).toBe(iso(Math.max(...origins)));
    // Forecast 12 against an outcome of 10 everywhere; the reading and yesterday were 10.
    expect(body.mae?.model).toBeCloseTo(2, 9);
    expect(body.mae?.persistence).toBeCloseTo(0, 9);
    expect(body.mae?.sameHourYesterday).toBeCloseTo(0, 9);
    for (const lead of body.maeByLeadHours ?? []) expect(lead.mae).toBeCloseTo(2, 9);
    // 10 is within a factor 1.25 of 12, every hour.
    expect(body.calibration).toEqual([
      { from: 0, to: 0.2, count: 0, statedMean: null, observed: null },
      { from: 0.2, to: 0.4, count: 0, statedMean: null, observed: null },
      { from: 0.4, to: 0.6, count: LIVE_MIN_FORECASTS * 24, statedMean: 0.55, observed: 1 },
      { from: 0.6, to: 0.8, count: 0, statedMean: null, observed: null },
      { from: 0.8, to: 1, count: 0, statedMean: null, observed: null },
    ]);
    expect(body.decision).toEqual({
      waits: 0,
      realizedSavingPct: 0,
      oracleSavingPct: 0,
      dearerWaitsPct: null,
      severeWaitsPct: null,
    });
  });

  it(`serves the stored back-test while fewer than ${LIVE_MIN_FORECASTS} live forecasts have been scored`, async () => {
    await importTenDays(engine, () => 10);
    await storeScoredForecasts(engine, LIVE_MIN_FORECASTS - 1);
    await runBacktest(engine);
    const body = await getAccuracy(engine.withDb);
    expect(body.source).toBe('backtest');
    expect(body.origins).toBe(47);
  });
});

describe('GET /api/forecast-accuracy parameters and failures', () => {
  const calls: string[] = [];
  const refusing: WithDb = () => {
    calls.push('db');
    return Promise.reject(new Error('connect ECONNREFUSED postgres://u:pw-secret@10.0.0.9:5432/gas'));
  };

  it.each([
    ['unknown', '?window=1d', '"1d" is not an allowed value'],
    ['wrong-case', '?window=7D', '"7D" is not an allowed value'],
    ['empty', '?window=', 'is empty'],
    ['repeated', '?window=7d&window=30d', 'is repeated'],
  ])('answers a %s window with a 400 naming it and its allowed values', async (_case, query, reason) => {
    calls.length = 0;
    const res = await appOn(refusing).app.request(`/api/forecast-accuracy${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    const body = (await res.json()) as { invalidParams: unknown };
    expect(body.invalidParams).toEqual([
      { name: 'window', reason: expect.stringContaining(reason), allowed: ['7d', '30d'] },
    ]);
    expect(calls).toEqual([]);
  });

  it('answers 503 with Retry-After when the store cannot be reached, leaking nothing', async () => {
    const res = await appOn(refusing).app.request('/api/forecast-accuracy?window=30d');
    expect(res.status).toBe(503);
    expect(res.headers.get('Retry-After')).toBe('30');
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ status: 503, title: 'History store unavailable' });
    expect(text).not.toMatch(/10\.0\.0\.9|pw-secret|postgres:/);
  });

  it('is described in the OpenAPI document with its parameter, body and errors', async () => {
    const res = await appOn(refusing).app.request('/openapi.json');
    const doc = (await res.json()) as {
      paths: Record<string, { get?: { parameters?: unknown[]; responses?: Record<string, unknown> } }>;
    };
    const get = doc.paths['/api/forecast-accuracy']?.get;
    expect(get?.parameters).toEqual([
      expect.objectContaining({
        name: 'window',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ enum: ['7d', '30d'], default: '7d' }),
      }),
    ]);
    expect(Object.keys(get?.responses ?? {}).sort()).toEqual(['200', '304', '400', '405', '503']);
  });
});

describe('MCP tool get_forecast_accuracy', () => {
  let engine: DatabaseEngine;
  const clients: Client[] = [];
  beforeAll(async () => {
    engine = await lab.open('pglite');
    await importTenDays(engine, () => 10);
    await storeScoredForecasts(engine, LIVE_MIN_FORECASTS);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
  });

  async function connect(withDb: WithDb) {
    const { app } = appOn(withDb);
    const client = new Client({ name: 'forecast-accuracy-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('https://gas.test/api/mcp'), {
        fetch: async (input, init) => app.fetch(new Request(input, init)),
      }),
    );
    clients.push(client);
    await client.listTools(); // the client then checks structuredContent against the output schema
    return { app, client };
  }

  it('answers the body of the endpoint, with its citation and a summary', async () => {
    const { app, client } = await connect(engine.withDb);
    const result = await client.callTool({ name: 'get_forecast_accuracy', arguments: { window: '30d' } });
    expect(result.isError ?? false).toBe(false);
    const structured = outputSchemaOf(forecastAccuracyTool).parse(result.structuredContent);
    const rest = ForecastAccuracyResponseSchema.parse(
      await (await app.request('/api/forecast-accuracy?window=30d')).json(),
    );
    expect(structured).toEqual({ ...rest, tier: undefined });
    expect(structured.source).toBe('live');
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toContain(`${LIVE_MIN_FORECASTS} forecasts scored over 30d (live`);
    expect(text).toContain(rest.citation);
  });

  it('rejects a bad window naming the argument and its allowed values', async () => {
    const { client } = await connect(engine.withDb);
    const result = await client.callTool({ name: 'get_forecast_accuracy', arguments: { window: '1d' } });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toContain('window must be one of "7d", "30d"; got "1d"');
  });

  it('reports an unreachable store as an isError result saying when to retry', async () => {
    const { client } = await connect(() => Promise.reject(new Error('connect ECONNREFUSED')));
    const result = await client.callTool({ name: 'get_forecast_accuracy', arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe(
      'get_forecast_accuracy failed: History store unavailable: The history database cannot be reached; retry shortly. Retry after 30 seconds.',
    );
  });
});
