import { buildLogSeries, toHourIndex } from './hourly-series';

/** Share of every series, from its end, that is held out of tuning and scored separately. */
export const HELD_OUT_SHARE = 1 / 3;

/**
 * Returns the index (in the aligned hourly series of `hours` hours) of the first held-out hour.
 * The back-test, the parameter search and the fallback-profile derivation all cut here, so the
 * part they call "tuning" is the same hours to the hour.
 */
export function heldOutStart(hours: number, share = HELD_OUT_SHARE): number {
  return Math.floor(hours * (1 - share));
}

/**
 * Returns only the rows that fall before the held-out part (the first two thirds of the hourly
 * span they align to). Whatever reads data for tuning calls this on the raw rows first, so the
 * held-out hours never reach it.
 */
export function selectTuningRows<Row extends { time: number; value: number }>(
  rows: readonly Row[],
  share = HELD_OUT_SHARE,
): Row[] {
  const series = buildLogSeries(rows);
  const cutHour = series.start + heldOutStart(series.values.length, share);
  return rows.filter((row) => toHourIndex(row.time) < cutHour);
}
