// `npx tsx bench/forecast.ts`: CPU time of one forecast refresh (the work behind /api/gas-predictions
// and /api/dashboard every 30 s) over 35 days of real hourly base fees from ../shared/data, per
// horizon: the whole forecast from history, against the same forecast from a basis (model fit and
// error replay) prepared once in the hour, as the service does.
import { join } from 'node:path';
import { type ForecastHorizon, forecastGas, HORIZON_HOURS, prepareForecast } from '../lib/forecast';
import { readCsvSeries } from '../scripts/lib/csv';
import { medianMs } from './median-ms';

const HOUR_MS = 3_600_000;
const DATA = join('..', 'shared', 'data', 'mainnet_basefee_hourly_median_2023-10-27_2024-02-13.csv');

async function main(): Promise<void> {
  const rows = await readCsvSeries(DATA, { valueColumn: 'base_fee_gwei' });
  const end = rows.at(-1)?.time ?? 0;
  const history = rows
    .filter((row) => row.time > end - 35 * 24 * HOUR_MS)
    .map((row) => ({ time: row.time, low: row.value * 0.95, average: row.value, high: row.value * 1.2 }));
  const now = Math.floor(end / HOUR_MS) * HOUR_MS + HOUR_MS + 10 * 60_000;
  const current = history.at(-1) ?? { low: 1, average: 1, high: 1 };
  console.log(`${history.length} hourly points (35 days of ${DATA}), ms per forecast (median)`);
  console.log('horizon  runs  from history  from prepared basis  ratio  preparing the basis');
  for (const horizon of Object.keys(HORIZON_HOURS) as ForecastHorizon[]) {
    const input = { history, current, now, horizon };
    const basis = prepareForecast(history, now, horizon);
    const runs = horizon === '7d' ? 15 : 40;
    const full = medianMs(runs, () => forecastGas(input));
    const reused = medianMs(runs, () => forecastGas(input, undefined, basis));
    const prepare = medianMs(runs, () => prepareForecast(history, now, horizon));
    console.log(
      `${horizon.padEnd(7)}  ${String(runs).padStart(4)}  ${full.toFixed(2).padStart(12)}  ` +
        `${reused.toFixed(2).padStart(19)}  ${(full / reused).toFixed(0).padStart(4)}x  ${prepare.toFixed(2).padStart(19)}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
