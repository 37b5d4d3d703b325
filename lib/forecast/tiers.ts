import { toHourIndex } from './hourly-series';
import { median } from './stats';
import type { GasTiers, HourlyGasPoint } from './types';

/** Log distance of the low and high tiers from the average tier (low <= 0 <= high). */
export interface TierSpread {
  low: number;
  high: number;
}

/** Returns the log spread of a reading's tiers around its average, undefined when unusable. */
export function spreadOf(tiers: GasTiers): TierSpread | undefined {
  if (!(tiers.average > 0 && tiers.low > 0 && tiers.high > 0)) return undefined;
  return {
    low: Math.min(0, Math.log(tiers.low / tiers.average)),
    high: Math.max(0, Math.log(tiers.high / tiers.average)),
  };
}

/**
 * Returns the typical (median) tier spread over the `hours` hours before `now`: the forecaster
 * models the average tier and hangs low and high on it at their usual distance, which is steadier
 * than three separate forecasts and keeps low <= average <= high by construction.
 */
export function measureTierSpread(
  history: readonly HourlyGasPoint[],
  now: number,
  hours: number,
): TierSpread | undefined {
  const from = toHourIndex(now) - hours;
  const lows: number[] = [];
  const highs: number[] = [];
  for (const point of history) {
    if (toHourIndex(point.time) < from || point.time > now) continue;
    const spread = spreadOf(point);
    if (spread) {
      lows.push(spread.low);
      highs.push(spread.high);
    }
  }
  return lows.length > 0 ? { low: median(lows), high: median(highs) } : undefined;
}

/**
 * Returns the tiers around a forecast average: the current spread fades toward the typical one
 * with the same weight as the current reading's deviation.
 */
export function tiersAround(
  average: number,
  current: TierSpread | undefined,
  typical: TierSpread | undefined,
  currentWeight: number,
): GasTiers {
  const base = typical ?? current ?? { low: 0, high: 0 };
  const now = current ?? base;
  const low = base.low + currentWeight * (now.low - base.low);
  const high = base.high + currentWeight * (now.high - base.high);
  return { low: average * Math.exp(low), average, high: average * Math.exp(high) };
}
