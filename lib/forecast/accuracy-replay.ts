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
 * Replays the forecast the service would have served at each past hour from `fromMs` (up to `toMs`,
 * exclusive, so a caller may replay a long span in slices), from the
 * stored hours before it only (the hour's own mean as the live reading), and pairs it with what
 * happened: the back-test of stored history, in the shape of a stored forecast so that one scorer
 * serves both. An origin is replayed when it has 7 days of history before it and a stored mean at
 * its own hour and at each of the 24 after it; `hours` is oldest first, hour-aligned.
 */
export function replayForecasts(
  hours: readonly HourlyGasPoint[],
  fromMs: number,
  toMs = Number.POSITIVE_INFINITY,
  params: ForecastParams = DEFAULT_FORECAST_PARAMS,
): ScorableForecast[] {
  const byHour = new Map(hours.map((point) => [point.time, point]));
  const first = hours[0];
  if (!first) return [];
  const averageAt = (time: number) => byHour.get(time)?.average;
  const start = Math.max(Math.ceil(fromMs / HOUR_MS) * HOUR_MS, first.time + REPLAY_WARMUP_HOURS * HOUR_MS);
  const replayed: ScorableForecast[] = [];
  let historyFrom = 0;
  let historyTo = 0;
  for (const point of hours) {
    const origin = point.time;
    if (origin < start) continue;
    if (origin >= toMs) break;
    const outcome = measureOutcome(origin, averageAt);
    // Only origins whose 24 hours have all happened and been stored can be judged.
    if (outcome.actual.length !== SCORED_HOURS || outcome.actual.some((v) => v === null)) continue;
    while (historyTo < hours.length && (hours[historyTo]?.time ?? origin) < origin) historyTo++;
    while ((hours[historyFrom]?.time ?? origin) < origin - LOOKBACK_HOURS * HOUR_MS) historyFrom++;
    const forecast = forecastGas(
      {
        history: hours.slice(historyFrom, historyTo),
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
      outcome,
    });
  }
  return replayed;
}
