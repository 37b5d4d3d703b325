// `npm run bench -- forecast-accuracy`: CPU of the back-test that GET /api/forecast-accuracy answers a
// young deployment with (`source: "backtest"`), over 35 days of real hourly base fees from
// ../shared/data (the most the store keeps).
// 1. The whole replay of a window (one forecast per hour of it), what each process used to run on the
//    request path, against scoring the same forecasts once stored.
// 2. The scheduled job that now keeps it (cron/backtest-job.ts) on an in-memory PGlite holding that
//    history: the catch-up ticks after an import or backfill, the next hour's run (one new origin and
//    the summaries), a tick with nothing to do; and a request, which only reads.
// CPU is process.cpuUsage() around each call (user + system, this process only): in part 2 it includes
// the embedded PGlite's own work, which on the Worker is Neon's, not the Worker's.
import { join } from 'node:path';
import { runBacktestJob } from '../cron/backtest-job';
import { parseConfig } from '../lib/config';
import type { AppDeps } from '../lib/deps';
import { scoreForecasts } from '../lib/forecast/accuracy';
import { replayForecasts } from '../lib/forecast/accuracy-replay';
import type { HourlyGasPoint } from '../lib/forecast/types';
import { createCoalescingCache } from '../lib/http/cache';
import { createLogger } from '../lib/log';
import { getForecastAccuracy } from '../lib/services/forecast-accuracy';
import { type DatabaseEngine, openDatabase } from '../lib/store/engines';
import { insertMainnetSnapshots } from '../lib/store/history-writes';
import { createMemoryLastGoodStore } from '../lib/store/last-good';
import { readCsvSeries } from '../scripts/lib/csv';
import { medianMs } from './median-ms';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const DATA = join('..', 'shared', 'data', 'mainnet_basefee_hourly_median_2023-10-27_2024-02-13.csv');

/** CPU milliseconds (user + system) `fn` takes, and its result. */
async function cpuMs<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const before = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, value };
}

async function main(): Promise<void> {
  const rows = await readCsvSeries(DATA, { valueColumn: 'base_fee_gwei' });
  const end = Math.floor((rows.at(-1)?.time ?? 0) / HOUR_MS) * HOUR_MS + HOUR_MS;
  const hours: HourlyGasPoint[] = rows
    .filter((row) => row.time >= end - 35 * 24 * HOUR_MS)
    .map((row) => ({ time: row.time, low: row.value * 0.95, average: row.value, high: row.value * 1.2 }));
  console.log(`${hours.length} hourly points (the last 35 days of ${DATA})`);
  wholeReplay(hours, end);
  await scheduledJob(hours);
}

/** Part 1: the whole replay of each window, as a request used to run it, and scoring it once stored. */
function wholeReplay(hours: readonly HourlyGasPoint[], end: number): void {
  console.log('\n1. the whole replay of a window (what each process used to run for a request)');
  console.log('window  origins  replay ms  per origin  scoring the stored forecasts ms  ratio');
  for (const [window, days] of [
    ['7d', 7],
    ['30d', 30],
  ] as const) {
    const from = end - days * 24 * HOUR_MS;
    const replayed = replayForecasts(hours, from);
    const replayMs = medianMs(3, () => replayForecasts(hours, from));
    const scoreMs = medianMs(20, () => scoreForecasts(replayed));
    const figures = scoreForecasts(replayed);
    console.log(
      `${window.padEnd(6)}  ${String(replayed.length).padStart(7)}  ${replayMs.toFixed(0).padStart(9)}  ` +
        `${(replayMs / Math.max(1, replayed.length)).toFixed(2).padStart(10)}  ${scoreMs.toFixed(2).padStart(31)}  ` +
        `${(replayMs / scoreMs).toFixed(0).padStart(4)}x`,
    );
    console.log(
      `        MAE model / persistence / same hour yesterday: ${figures.mae?.model} / ${figures.mae?.persistence} / ` +
        `${figures.mae?.sameHourYesterday} gwei; decision ${JSON.stringify(figures.decision)}`,
    );
  }
}

/** Part 2: the scheduled job on PGlite holding the same history, then a request. */
async function scheduledJob(hours: readonly HourlyGasPoint[]): Promise<void> {
  console.log('\n2. the scheduled job (cron/backtest-job.ts) on an in-memory PGlite holding that history');
  const engine = await openDatabase({ kind: 'pglite' });
  try {
    await engine.migrate();
    // The last 5 hours are held back: each arrives before one of the hourly runs after the catch-up.
    const heldBack = hours.slice(-5);
    await store(engine, hours.slice(0, -5));
    let clock = (heldBack[0] as HourlyGasPoint).time + 10 * MINUTE_MS;
    const deps = benchDeps(engine, () => clock);
    let tick = 0;
    let totalMs = 0;
    for (;;) {
      const { ms, value } = await cpuMs(() => runBacktestJob(deps, clock));
      tick++;
      totalMs += ms;
      console.log(
        `catch-up tick ${tick}: replayed ${value.replayed}, backlog ${value.backlog}, summary ${value.summary}: ${ms.toFixed(0)} ms CPU`,
      );
      if (value.summary !== 'pending') break;
      clock += MINUTE_MS;
    }
    console.log(`catch-up total: ${totalMs.toFixed(0)} ms CPU over ${tick} ticks`);
    const hourly: number[] = [];
    const idle: number[] = [];
    for (const point of heldBack) {
      await store(engine, [point]);
      clock = point.time + HOUR_MS + 10 * MINUTE_MS;
      const next = await cpuMs(() => runBacktestJob(deps, clock));
      if (next.value.replayed !== 1 || next.value.summary !== 'written')
        throw new Error('the hour did not run');
      hourly.push(next.ms);
      idle.push((await cpuMs(() => runBacktestJob(deps, clock + MINUTE_MS))).ms);
    }
    console.log(
      `each of the next ${hourly.length} hours (one new origin, both summaries): median ${median(hourly).toFixed(0)} ms, ` +
        `at most ${Math.max(...hourly).toFixed(0)} ms CPU; a later tick in the hour: median ${median(idle).toFixed(1)} ms`,
    );
    const requests: number[] = [];
    let origins = 0;
    for (let i = 0; i < 20; i++) {
      // A fresh cache each time: every request reads the store, as a new isolate's first one does.
      const reader = { ...deps, cache: createCoalescingCache({ now: () => clock }) };
      const { ms, value } = await cpuMs(() => getForecastAccuracy(reader, '30d'));
      requests.push(ms);
      origins = value.origins;
    }
    console.log(
      `a request for window=30d (source backtest, ${origins} origins, read from the store): median ` +
        `${median(requests).toFixed(1)} ms CPU`,
    );
  } finally {
    await engine.close();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Stores `points` as one mainnet snapshot at each hour's start: its hourly mean is the point. */
async function store(engine: DatabaseEngine, points: readonly HourlyGasPoint[]): Promise<void> {
  await engine.withDb((db) =>
    insertMainnetSnapshots(
      db,
      points.map((p) => ({
        slotStart: p.time,
        readAt: p.time + 5_000,
        blockNumber: null,
        baseFeeGwei: null,
        lowGwei: p.low,
        averageGwei: p.average,
        highGwei: p.high,
        source: 'import',
      })),
    ),
  );
}

function benchDeps(engine: DatabaseEngine, now: () => number): AppDeps {
  return {
    config: parseConfig({}),
    fetch: () => Promise.reject(new Error('no upstream in this benchmark')),
    now,
    log: createLogger(() => {}),
    cache: createCoalescingCache({ now }),
    lastGood: createMemoryLastGoodStore(now),
    withDb: engine.withDb,
    state: new Map(),
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
