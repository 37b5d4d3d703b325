// `npm run bench -- forecast-accuracy`: CPU time of GET /api/forecast-accuracy's two paths over 35
// days of real hourly base fees from ../shared/data (the most the store keeps): the replay a young
// deployment answers with (`source: "backtest"`, one forecast per hour of the window, kept for the
// rest of the hour in each process; the service replays the 30-day window once and scores each
// window's part), against scoring the stored live forecasts of the same window.
import { join } from 'node:path';
import { scoreForecasts } from '../lib/forecast/accuracy';
import { replayForecasts } from '../lib/forecast/accuracy-replay';
import { readCsvSeries } from '../scripts/lib/csv';
import { medianMs } from './median-ms';

const HOUR_MS = 3_600_000;
const DATA = join('..', 'shared', 'data', 'mainnet_basefee_hourly_median_2023-10-27_2024-02-13.csv');

async function main(): Promise<void> {
  const rows = await readCsvSeries(DATA, { valueColumn: 'base_fee_gwei' });
  const end = Math.floor((rows.at(-1)?.time ?? 0) / HOUR_MS) * HOUR_MS + HOUR_MS;
  const hours = rows
    .filter((row) => row.time >= end - 35 * 24 * HOUR_MS)
    .map((row) => ({ time: row.time, low: row.value * 0.95, average: row.value, high: row.value * 1.2 }));
  console.log(`${hours.length} hourly points (the last 35 days of ${DATA})`);
  console.log('window  origins  replay ms  per origin  scoring the same as stored forecasts ms  ratio');
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
        `${(replayMs / Math.max(1, replayed.length)).toFixed(2).padStart(10)}  ${scoreMs.toFixed(2).padStart(39)}  ` +
        `${(replayMs / scoreMs).toFixed(0).padStart(4)}x`,
    );
    console.log(
      `        MAE model / persistence / same hour yesterday: ${figures.mae?.model} / ${figures.mae?.persistence} / ` +
        `${figures.mae?.sameHourYesterday} gwei; decision ${JSON.stringify(figures.decision)}`,
    );
    // The service replays 4 hours at a time and yields in between: the longest slice is the longest
    // the replay holds the event loop (other requests wait at most that).
    const slices: number[] = [];
    for (let t = from; t < end; t += 4 * HOUR_MS) {
      const started = performance.now();
      replayForecasts(hours, t, t + 4 * HOUR_MS);
      slices.push(performance.now() - started);
    }
    const sorted = [...slices].sort((a, b) => a - b);
    const at = (q: number) => (sorted[Math.floor(q * (sorted.length - 1))] ?? Number.NaN).toFixed(1);
    console.log(
      `        sliced by 4 hours (${slices.length} slices): median ${at(0.5)} ms, p95 ${at(0.95)} ms, longest ${at(1)} ms`,
    );
    const bands = (figures.calibration ?? []).filter((band) => band.count > 0);
    console.log(
      `        calibration (band: stated -> observed, count): ${bands
        .map((b) => `${b.from}-${b.to}: ${b.statedMean}->${b.observed} (${b.count})`)
        .join(', ')}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
