import { hourOfWeek, type LogSeries, valueAt } from './hourly-series';
import type { ForecastParams } from './params';
import type { SeasonalProfile } from './seasonal-profile';
import { median } from './stats';

/** The fitted pieces a forecast needs: the log history, the weekly shape and the tuning constants. */
export interface LogModel {
  series: LogSeries;
  profile: SeasonalProfile;
  params: ForecastParams;
}

/** Returns the seasonal log offset of an hour. */
export function seasonalAt(model: LogModel, hour: number): number {
  return model.profile[hourOfWeek(hour)] ?? 0;
}

/**
 * Returns the current level: the median deseasonalised log value over the `levelHours` hours before
 * `originHour`, or NaN when fewer than a quarter of them hold a reading (one odd hour must not set it).
 */
export function measureLevel(model: LogModel, originHour: number): number {
  const hours = model.params.levelHours;
  const values: number[] = [];
  for (let hour = originHour - hours; hour < originHour; hour++) {
    const v = valueAt(model.series, hour);
    if (!Number.isNaN(v)) values.push(v - seasonalAt(model, hour));
  }
  return values.length >= Math.max(1, hours / 4) ? median(values) : Number.NaN;
}

/** Returns the weight of the current deviation `lead` hours ahead: a fast-fading part plus a floor. */
export function anchorWeight(params: ForecastParams, lead: number): number {
  return params.anchorFloor + (1 - params.anchorFloor) * params.anchorPersistence ** lead;
}

/**
 * Forecasts log values for hours `originHour + 1 ... originHour + leads` from the log of the reading
 * at the origin: level + seasonal offset + a fading share of how far the reading sits from where
 * the level and the pattern expected it. Without a usable level the reading alone sets it.
 */
export function forecastLogPath(
  model: LogModel,
  originHour: number,
  anchorLog: number,
  leads: number,
): number[] {
  const measured = measureLevel(model, originHour);
  const level = Number.isNaN(measured) ? anchorLog - seasonalAt(model, originHour) : measured;
  const deviation = anchorLog - level - seasonalAt(model, originHour);
  const path: number[] = [];
  for (let k = 1; k <= leads; k++) {
    path.push(level + seasonalAt(model, originHour + k) + anchorWeight(model.params, k) * deviation);
  }
  return path;
}
