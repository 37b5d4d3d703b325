import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { DashboardResponseSchema, GasPredictionsResponseSchema } from '../../lib/schemas/forecast';
import type { WithDb } from '../../lib/store/database';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { insertMainnetSnapshots, type MainnetSnapshot } from '../../lib/store/history-writes';
import { SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { createTestDeps } from '../helpers/deps';
import { startUpstreams, type Upstreams } from '../upstreams';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const HORIZONS = { '6h': 6, '12h': 12, '24h': 24, '7d': 168 } as const;
const nextHourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS + HOUR_MS;

/** The seeded average tier of every slot in a UTC hour: cheap at 04:00, dear at 16:00. */
function seededAverage(hour: number): number {
  return 20 + 10 * Math.sin(((hour - 10) / 24) * 2 * Math.PI);
}

/**
 * Each hour's mean is served to the wei (9 decimals), as every other gwei figure: a sum over a count
 * left floating-point noise past it (0.10144222379999994 for an hour stored as 0.1014422238).
 */
function expectHourlyMeansToTheWei(points: { timestamp: string; gasPrice: number }[]): void {
  expect(points.length).toBeGreaterThan(0);
  for (const point of points) {
    const hour = new Date(point.timestamp).getUTCHours();
    expect(point.gasPrice).toBeCloseTo(seededAverage(hour), 8);
    expect(point.gasPrice).toBe(Number(point.gasPrice.toFixed(9)));
  }
}

/** Ten days of snapshots with a daily shape: cheap at 04:00 UTC, dear at 16:00 UTC. */
function seededSnapshots(now: number): MainnetSnapshot[] {
  const rows: MainnetSnapshot[] = [];
  for (let slot = slotStartOf(now - 10 * DAY_MS); slot < now - SLOT_MS; slot += SLOT_MS) {
    const average = seededAverage(new Date(slot).getUTCHours());
    rows.push({
      slotStart: slot,
      readAt: slot + 5_000,
      blockNumber: null,
      baseFeeGwei: average - 1,
      lowGwei: average * 0.9,
      averageGwei: average,
      highGwei: average * 1.2,
      source: 'import',
    });
  }
  return rows;
}

describe('GET /api/gas-predictions and /api/dashboard', () => {
  let up: Upstreams;
  let seeded: DatabaseEngine;
  let empty: DatabaseEngine;
  let seededCount = 0;
  const unreachable: WithDb = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));

  beforeAll(async () => {
    up = await startUpstreams();
    [seeded, empty] = await Promise.all([openDatabase({ kind: 'pglite' }), openDatabase({ kind: 'pglite' })]);
    await Promise.all([seeded.migrate(), empty.migrate()]);
    seededCount = await seeded.withDb((db) => insertMainnetSnapshots(db, seededSnapshots(Date.now())));
  });
  afterAll(async () => {
    await Promise.all([up.close(), seeded.close(), empty.close()]);
  });
  beforeEach(() => up.reset());

  const appWith = (withDb: WithDb) => createApp(createTestDeps(up.env, { withDb }));

  it.each(Object.entries(HORIZONS))('forecasts %s from stored history', async (timeframe, points) => {
    const before = Date.now();
    const res = await appWith(seeded.withDb).request(`/api/gas-predictions?timeframe=${timeframe}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=30, s-maxage=30');
    const body = GasPredictionsResponseSchema.parse(await res.json());
    expect(body.timeframe).toBe(timeframe);
    expect(body.predictions).toHaveLength(points);
    // The next whole hour when the forecast was made (the request may straddle the turn of an hour).
    const nextHour = Date.parse(body.predictions[0]!.timestamp);
    expect([nextHourOf(before), nextHourOf(Date.now())]).toContain(nextHour);
    expect(body.usingFallbackData).toBe(false);
    expect(body.dataPoints).toBe(seededCount);
    // As many hours back as ahead: the oldest `points` hours before the next one, the hour under way
    // the last (absent in the first 90 s of an hour, before its first snapshot).
    const hours = body.historical.map((p) => Date.parse(p.timestamp));
    expect(hours[0]).toBe(nextHour - points * HOUR_MS);
    expect(hours.at(-1)).toBeLessThanOrEqual(nextHour - HOUR_MS);
    expect([points - 1, points]).toContain(hours.length);
    expectHourlyMeansToTheWei(body.historical);
    expect(body.current.source).toBe('rpc-1');
    expect(body.citation).toMatch(/updated \d{4}-\d{2}-\d{2}T/);
    if (body.decision.recommendation === 'send_now') expect(body.decision.expectedSavingsPct).toBe(0);
    else {
      // The hour waited for is a predicted hour, the cheapest or a nearer one worth nearly as much.
      expect(body.predictions.map((p) => p.timestamp)).toContain(body.decision.nextBestAt);
      expect(Date.parse(body.decision.nextBestAt)).toBeLessThanOrEqual(
        Date.parse(body.nextBestTime?.timestamp ?? ''),
      );
    }
  });

  it('learns the stored daily shape: past the first day, the cheapest predicted hour is near 04:00 UTC', async () => {
    // Past a day ahead the live reading's departure from the stored shape has faded to a constant
    // tenth, so where the cheapest hour falls does not depend on the hour the test runs at (within
    // the first hours the simulator's reading, far from the seeded level, still weighs).
    const res = await appWith(seeded.withDb).request('/api/gas-predictions?timeframe=7d');
    const body = GasPredictionsResponseSchema.parse(await res.json());
    const cheapest = body.predictions.slice(24).reduce((a, b) => (b.average < a.average ? b : a));
    expect([3, 4, 5]).toContain(new Date(cheapest.timestamp).getUTCHours());
  });

  it.each([
    ['an empty store', () => empty.withDb],
    ['an unreachable store', () => unreachable],
  ])('answers from live data and the built-in profile with %s', async (_name, store) => {
    const res = await appWith(store()).request('/api/gas-predictions');
    expect(res.status).toBe(200);
    const body = GasPredictionsResponseSchema.parse(await res.json());
    expect(body.usingFallbackData).toBe(true);
    expect(body.dataPoints).toBe(0);
    expect(body.historical).toEqual([]);
    expect(body.predictions).toHaveLength(24);
  });

  it('rejects a timeframe outside the allowed set with a 400 naming it', async () => {
    const res = await appWith(seeded.withDb).request('/api/gas-predictions?timeframe=48h');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { invalidParams: { name: string; allowed: string[] }[] };
    expect(body.invalidParams[0]).toMatchObject({ name: 'timeframe', allowed: ['6h', '12h', '24h', '7d'] });
  });

  it('serves the dashboard with 24 predictions, the decision, the price and the last day of history', async () => {
    const app = appWith(seeded.withDb);
    const res = await app.request('/api/dashboard');
    expect(res.status).toBe(200);
    const body = DashboardResponseSchema.parse(await res.json());
    expect(body.predictions).toHaveLength(24);
    expect(body.ethPrice.usd).toBeGreaterThan(0);
    // The last 24 hours in hourly buckets, the hour under way the last (SPEC decision 10).
    const nextHour = Date.parse(body.predictions[0]!.timestamp);
    expect(Date.parse(body.compactHistory[0]!.timestamp)).toBe(nextHour - 24 * HOUR_MS);
    expect([23, 24]).toContain(body.compactHistory.length);
    expectHourlyMeansToTheWei(body.compactHistory);
    const predictions = GasPredictionsResponseSchema.parse(
      await (await app.request('/api/gas-predictions')).json(),
    );
    expect(body.predictions).toEqual(predictions.predictions);
    expect(body.nextBestWindow).toEqual(predictions.nextBestTime);
    expect(body.decision).toEqual(predictions.decision);
    expect(body.usingFallbackData).toBe(false);
    expect(predictions.usingFallbackData).toBe(false);
  });

  it('serves the dashboard with an empty compact history when the store is unreachable', async () => {
    const res = await appWith(unreachable).request('/api/dashboard');
    expect(res.status).toBe(200);
    const body = DashboardResponseSchema.parse(await res.json());
    expect(body.compactHistory).toEqual([]);
    expect(body.predictions).toHaveLength(24);
    // The built-in profile stood in, as gas-predictions says: a client of the dashboard is told too.
    expect(body.usingFallbackData).toBe(true);
  });

  it("documents the dashboard's usingFallbackData in /openapi.json as a required boolean", async () => {
    const doc = (await (await appWith(seeded.withDb).request('/openapi.json')).json()) as {
      components: {
        schemas: Record<
          string,
          { properties: Record<string, { type: string; description?: string }>; required: string[] }
        >;
      };
    };
    const dashboard = doc.components.schemas.DashboardResponse!;
    expect(dashboard.properties.usingFallbackData?.type).toBe('boolean');
    expect(dashboard.properties.usingFallbackData?.description).toMatch(/7 days/);
    expect(dashboard.required).toContain('usingFallbackData');
  });

  it('forecasts from the stored history at the first refresh after the store comes back', async () => {
    let storeUp = false;
    let offsetMs = 0;
    const switching: WithDb = (fn) => (storeUp ? seeded.withDb(fn) : unreachable(fn));
    const app = createApp(createTestDeps(up.env, { withDb: switching, now: () => Date.now() + offsetMs }));
    const get = async () =>
      GasPredictionsResponseSchema.parse(await (await app.request('/api/gas-predictions')).json());
    expect((await get()).usingFallbackData).toBe(true);
    // Within the same hour: the model prepared from the empty history must not outlive the outage.
    storeUp = true;
    offsetMs = 31_000;
    const after = await get();
    expect(after.usingFallbackData).toBe(false);
    expect(after.dataPoints).toBe(seededCount);
  });

  it.each([
    [6.99, true],
    [7.01, false],
  ])(
    'says usingFallbackData by the age of the oldest snapshot, to the minute: %f days stored gives %s',
    async (days, fallback) => {
      // 20 minutes into an hour, 6.99 days back is 34 minutes into the hour 168 hours back: counted in
      // whole hours, that history would look a week long.
      const now = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 2 * DAY_MS + 20 * 60_000;
      const store = await openDatabase({ kind: 'pglite' });
      try {
        await store.migrate();
        const rows = seededSnapshots(now).filter((row) => row.slotStart >= now - days * DAY_MS);
        await store.withDb((db) => insertMainnetSnapshots(db, rows));
        const app = createApp(createTestDeps(up.env, { withDb: store.withDb, now: () => now }));
        const body = GasPredictionsResponseSchema.parse(
          await (await app.request('/api/gas-predictions')).json(),
        );
        expect(body.dataPoints).toBe(rows.length);
        expect(body.usingFallbackData).toBe(fallback);
      } finally {
        await store.close();
      }
    },
  );

  it('reads the store once per refresh however many requests arrive', async () => {
    let reads = 0;
    const counting: WithDb = (fn) => {
      reads += 1;
      return seeded.withDb(fn);
    };
    const app = appWith(counting);
    const paths = ['/api/dashboard', '/api/gas-predictions', '/api/gas-predictions?timeframe=7d'];
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => app.request(paths[i % 3]!)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    // One read for the forecast history, one for the current reading's 7-day base-fee rank.
    expect(reads).toBe(2);
  });

  it('answers 503 problem+json when no mainnet reading exists at all', async () => {
    for (const sim of up.mainnet) sim.fault('refuse');
    up.etherscan.fault('http-500');
    const app = appWith(seeded.withDb);
    for (const path of ['/api/gas-predictions', '/api/dashboard']) {
      const res = await app.request(path);
      expect(res.status).toBe(503);
      expect(res.headers.get('Content-Type')).toBe('application/problem+json');
      // The seconds until the failed refresh is tried again: 5 s after the first failure (and up to a
      // second until this instance looks again), counting down (a slow machine only lowers it).
      const retryAfter = Number(res.headers.get('Retry-After'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(6);
    }
  });
});

describe('a forecast across the turn of an hour', () => {
  it('starts at the next whole hour once the hour turns, though the last forecast is seconds old', async () => {
    const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS;
    let now = hour - 10_000;
    const clocked = await startUpstreams({ now: () => now });
    try {
      const app = createApp(createTestDeps(clocked.env, { now: () => now }));
      const first = async (path: string) => {
        const body = (await (await app.request(path)).json()) as { predictions: { timestamp: string }[] };
        return Date.parse(body.predictions[0]!.timestamp);
      };
      expect(await first('/api/gas-predictions?timeframe=6h')).toBe(hour);
      expect(await first('/api/dashboard')).toBe(hour);
      // 5 s into the new hour, 15 s after those forecasts were made (they are kept 30 s).
      now = hour + 5_000;
      expect(await first('/api/gas-predictions?timeframe=6h')).toBe(hour + HOUR_MS);
      expect(await first('/api/dashboard')).toBe(hour + HOUR_MS);
    } finally {
      await clocked.close();
    }
  });
});

describe('a forecast made from a last good reading', () => {
  it('is not served once that reading is over 5 minutes old, though the forecast is seconds old', async () => {
    let now = Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 60_000;
    const clocked = await startUpstreams({ now: () => now });
    try {
      const app = createApp(createTestDeps(clocked.env, { now: () => now }));
      const get = async (path: string) => {
        const res = await app.request(path);
        return { status: res.status, body: (await res.json()) as { current?: { source: string } } };
      };
      expect((await get('/api/gas-predictions?timeframe=6h')).body.current?.source).toBe('rpc-1');
      for (const sim of clocked.mainnet) await sim.fault('refuse');
      await clocked.etherscan.fault('http-500');
      // 290 s on, the forecast is made again from the last good reading, then kept 30 s.
      now += 290_000;
      expect((await get('/api/gas-predictions?timeframe=6h')).body.current?.source).toBe('stale:rpc-1');
      expect((await get('/api/dashboard')).status).toBe(200);
      // 25 s later that reading is 315 s old (SPEC decision 7: at most 5 minutes).
      now += 25_000;
      for (const path of ['/api/gas-predictions?timeframe=6h', '/api/dashboard', '/api/gas']) {
        expect((await get(path)).status, path).toBe(503);
      }
    } finally {
      await clocked.close();
    }
  });
});
