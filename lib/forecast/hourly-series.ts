export const HOUR_MS = 3_600_000;
export const HOURS_PER_WEEK = 168;

/** Returns the whole-hour index (hours since the Unix epoch) of a time in milliseconds. */
export function toHourIndex(ms: number): number {
  return Math.floor(ms / HOUR_MS);
}

/** Returns the UTC hour of the week of an hour index, Monday 00:00 = 0 (the epoch began on a Thursday). */
export function hourOfWeek(hourIndex: number): number {
  return (((hourIndex + 72) % HOURS_PER_WEEK) + HOURS_PER_WEEK) % HOURS_PER_WEEK;
}

/**
 * A dense hourly series of natural-log values: `values[i]` is hour `start + i`, NaN where no
 * reading exists. Gas moves multiplicatively, so the forecaster works in log space throughout.
 */
export interface LogSeries {
  start: number;
  values: Float64Array;
}

/**
 * Builds a dense log series from timed positive values, averaging the logs of several values that
 * fall in the same hour (a minute-grid source lands one per hour; duplicates are merged, not lost).
 * Non-positive or non-finite values are skipped because a fee of zero has no log and means bad data.
 */
export function buildLogSeries(points: readonly { time: number; value: number }[]): LogSeries {
  const usable = points.filter((p) => Number.isFinite(p.time) && Number.isFinite(p.value) && p.value > 0);
  if (usable.length === 0) return { start: 0, values: new Float64Array(0) };
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const p of usable) {
    const hour = toHourIndex(p.time);
    first = Math.min(first, hour);
    last = Math.max(last, hour);
  }
  const sums = new Float64Array(last - first + 1);
  const counts = new Uint16Array(last - first + 1);
  for (const p of usable) {
    const i = toHourIndex(p.time) - first;
    sums[i] = (sums[i] ?? 0) + Math.log(p.value);
    counts[i] = (counts[i] ?? 0) + 1;
  }
  const values = sums.map((sum, i) => ((counts[i] ?? 0) > 0 ? sum / (counts[i] ?? 1) : Number.NaN));
  return { start: first, values };
}

/** Returns the log value at an hour index, NaN when outside the series or missing. */
export function valueAt(series: LogSeries, hour: number): number {
  return series.values[hour - series.start] ?? Number.NaN;
}

/** Returns the series cut to the hours before `endHour` (exclusive), sharing no state with the original. */
export function sliceBefore(series: LogSeries, endHour: number): LogSeries {
  const length = Math.max(0, Math.min(series.values.length, endHour - series.start));
  return { start: series.start, values: series.values.slice(0, length) };
}

/** Counts the hours that hold a reading. */
export function countPresent(series: LogSeries): number {
  let count = 0;
  for (const v of series.values) if (!Number.isNaN(v)) count++;
  return count;
}
