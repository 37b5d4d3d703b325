import { join } from 'node:path';
import { deriveAverageProfile } from '../../lib/forecast/derive-profile';
import { selectTuningRows } from '../../lib/forecast/held-out';
import type { LogSeries } from '../../lib/forecast/hourly-series';
import { readCsvSeries, type SeriesRow } from './csv';

/** A real hourly series in shared/data and the columns that hold its times and gwei values. */
export interface SeriesSource {
  file: string;
  timeColumn: string;
  valueColumn: string;
}

/** The two series the back-test scores (and reports a held-out last third of). */
export const SCORED_SERIES: readonly SeriesSource[] = [
  {
    file: 'owlracle_eth_gas_price_hourly_2024-11-06_2024-12-06.csv',
    timeColumn: 'timestamp_utc',
    valueColumn: 'close_gwei',
  },
  {
    file: 'mainnet_basefee_hourly_median_2023-10-27_2024-02-13.csv',
    timeColumn: 'timestamp_utc',
    valueColumn: 'base_fee_gwei',
  },
];

/** The sub-gwei 2026 base-fee series (14 days, calm): scored by the back-test, tuned on its first two thirds only. */
export const SERIES_2026: SeriesSource = {
  file: 'mainnet_basefee_hourly_median_2026-01-07_2026-01-21.csv',
  timeColumn: 'timestamp_utc',
  valueColumn: 'base_fee_gwei',
};

/** The 2021 base-fee series: never scored by the back-test; interpolated times (about 1 h error). */
export const SERIES_2021: SeriesSource = {
  file: 'mainnet_basefee_every15blocks_2021-08-05_2021-12-31.csv',
  timeColumn: 'approx_timestamp_utc',
  valueColumn: 'base_fee_gwei',
};

/** Reads all the rows of a source. */
export function readSourceRows(dataDir: string, source: SeriesSource): Promise<SeriesRow[]> {
  return readCsvSeries(join(dataDir, source.file), {
    timeColumn: source.timeColumn,
    valueColumn: source.valueColumn,
  });
}

/** Reads a source and keeps only its tuning part: nothing after this call sees a held-out hour. */
export async function readTuningRows(dataDir: string, source: SeriesSource): Promise<SeriesRow[]> {
  return selectTuningRows(await readSourceRows(dataDir, source));
}

/** Series to score, each with a built-in profile derived without it (from `others` and the rest). */
export function withLeaveOneOutPriors(
  series: readonly LogSeries[],
  others: readonly LogSeries[] = [],
): { series: LogSeries; prior: number[] }[] {
  return series.map((s, i) => ({
    series: s,
    prior: deriveAverageProfile([...series.filter((_, j) => j !== i), ...others]),
  }));
}
