import type { ScorableForecast } from './accuracy';
import { measureOutcome, SCORED_HOURS } from './accuracy';
import { forecastGas } from './forecast-gas';
import { HOUR_MS } from './hourly-series';
import { DEFAULT_FORECAST_PARAMS, type ForecastParams } from './params';
import type { HourlyGasPoint } from './types';

/** Hours of stored history a replayed origin needs before it, as the back-test's warm-up: 7 days. */
export const REPLAY_WARMUP_HOURS = 168;
/** Hours of history the service reads for a forecast (FORECAST_HISTORY_DAYS): the replay sees no more. */
const LOOKBACK_HOURS = 35 * 24;

/**
 * The past hours from `fromMs` (up to `toMs`, exclusive) whose forecast can be replayed and judged
 * from `hours` (oldest first, hour-aligned): 7 days of history before the hour, and a stored mean at
 * the hour itself and at each of the 24 after it. Oldest first.
 */
export function replayableOrigins(
  hours: readonly HourlyGasPoint[],
  fromMs: number,
  toMs = Number.POSITIVE_INFINITY,
): number[] {
  const first = hours[0];
  if (!first) return [];
  const stored = new Set(hours.map((point) => point.time));
  const start = Math.max(Math.ceil(fromMs / HOUR_MS) * HOUR_MS, first.time + REPLAY_WARMUP_HOURS * HOUR_MS);
  const origins: number[] = [];
  for (const { time } of hours) {
    if (time < start) continue;
    if (time >= toMs) break;
    let complete = true;
    for (let k = 1; k <= SCORED_HOURS && complete; k++) complete = stored.has(time + k * HOUR_MS);
    if (complete) origins.push(time);
  }
  return origins;
}

/**
 * Replays the forecast the service would have served at each of `origins` (stored hours of
 * `hours`, oldest first), from the stored hours before it only (the hour's own mean as the live
 * reading), and pairs it with what happened: the back-test of stored history, in the shape of a
 * stored forecast so that one scorer serves both. Costs one forecast (a few ms of CPU) per origin.
 */
export function replayOrigins(
  hours: readonly HourlyGasPoint[],
  origins: readonly number[],
  params: ForecastParams = DEFAULT_FORECAST_PARAMS,
): ScorableForecast[] {
  const byHour = new Map(hours.map((point, index) => [point.time, { point, index }]));
  const averageAt = (time: number) => byHour.get(time)?.point.average;
  const replayed: ScorableForecast[] = [];
  for (const origin of origins) {
    const at = byHour.get(origin);
    if (!at) continue;
    const { point, index } = at;
    let historyFrom = index;
    while (historyFrom > 0 && (hours[historyFrom - 1]?.time ?? 0) >= origin - LOOKBACK_HOURS * HOUR_MS) {
      historyFrom--;
    }
    const forecast = forecastGas(
      {
        history: hours.slice(historyFrom, index),
        current: { low: point.low, average: point.average, high: point.high },
        now: origin,
        horizon: '24h',
      },
      params,
    );
    replayed.push({
      originHour: origin,
      current: point.average,
      points: forecast.predictions,
      decision: forecast.decision,
      outcome: measureOutcome(origin, averageAt),
    });
  }
  return replayed;
}

/**
 * Replays every replayable hour from `fromMs` (up to `toMs`, exclusive): `replayOrigins` of
 * `replayableOrigins`. The scheduled job replays a few origins at a time instead; this is the whole
 * back-test of a stored history in one call (tests and benchmarks).
 */
export function replayForecasts(
  hours: readonly HourlyGasPoint[],
  fromMs: number,
  toMs = Number.POSITIVE_INFINITY,
  params: ForecastParams = DEFAULT_FORECAST_PARAMS,
): ScorableForecast[] {
  return replayOrigins(hours, replayableOrigins(hours, fromMs, toMs), params);
}
