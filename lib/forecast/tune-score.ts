import { fitModel } from './fit-model';
import { type LogSeries, sliceBefore } from './hourly-series';
import { forecastLogPath, hourOfDay, type LogModel, measureRecentShape, seasonalAt } from './log-model';
import type { ForecastParams } from './params';
import type { SeasonalProfile } from './seasonal-profile';
import { median } from './stats';

/** The back-test's horizon and warm-up, which the search scores the same way. */
const HORIZON = 24;
const WARMUP = 168;

/** Point-forecast accuracy on one series: MAE (gwei) of the model and both baselines, and the ratios. */
export interface PointScore {
  origins: number;
  mae: { model: number; persistence: number; sameHourYesterday: number };
  ratio: { vsPersistence: number; vsSameHourYesterday: number };
}

/**
 * The forecast of a hypothetical model that knows the coming day's level: the median over the next
 * `leads` hours of the actual values less the model's shape (weekly profile + recent hour-of-day
 * correction), plus that shape. It peeks at the future on purpose: the gap between its error and the
 * model's is what a better level forecast could win, and what remains is the shape's own error.
 */
export function knownLevelPath(
  model: LogModel,
  future: LogSeries,
  originHour: number,
  leads: number,
): number[] {
  const recent = measureRecentShape(model, originHour);
  const shape = (hour: number) => seasonalAt(model, hour) + (recent[hourOfDay(hour)] ?? 0);
  const hours = Array.from({ length: leads }, (_, k) => originHour + 1 + k);
  const level = median(hours.map((hour) => (future.values[hour - future.start] ?? Number.NaN) - shape(hour)));
  return hours.map((hour) => level + shape(hour));
}

/** The profile parameters: origins fitted with equal values share their weekly shapes. */
const profileKey = (p: ForecastParams) =>
  `${p.profileWeeks}/${p.shrinkCount}/${p.priorWeeks}/${p.priorNoiseScale}`;

/**
 * Scores 24-hour point forecasts on one series exactly as the back-test walks it (7-day warm-up;
 * an origin counts when it and its next 24 hours hold readings; each forecast sees only the hours
 * before its origin), but without the decision and error-spread replay, so a parameter search can
 * afford thousands of evaluations. Give it tuning data only: it scores every origin it can.
 * Fitted weekly shapes are kept in `cache` per profile parameters, since most candidates share them
 * (one cache per series and `prior`). `prior` replaces the built-in profile in the fit. With
 * `knownLevel`, the model is given the coming day's level (`knownLevelPath`), to measure headroom.
 */
export function scorePointForecasts(
  series: LogSeries,
  params: ForecastParams,
  cache: Map<string, (SeasonalProfile | undefined)[]> = new Map(),
  prior?: ArrayLike<number>,
  knownLevel = false,
): PointScore {
  const n = series.values.length;
  const key = profileKey(params);
  let profiles = cache.get(key);
  if (!profiles) {
    profiles = [];
    cache.set(key, profiles);
  }
  const sums = { model: 0, persistence: 0, sameHourYesterday: 0 };
  let leads = 0;
  let origins = 0;
  for (let i = WARMUP; i + HORIZON < n; i++) {
    const window = series.values.subarray(i, i + HORIZON + 1);
    if (window.some((v) => Number.isNaN(v))) continue;
    const history = sliceBefore(series, series.start + i);
    let profile = profiles[i];
    if (!profile) {
      profile = fitModel(history, series.start + i, params, prior).model.profile;
      profiles[i] = profile;
    }
    const model: LogModel = { series: history, profile, params };
    const anchor = series.values[i] ?? Number.NaN;
    const path = knownLevel
      ? knownLevelPath(model, series, series.start + i, HORIZON)
      : forecastLogPath(model, series.start + i, anchor, HORIZON);
    const current = Math.exp(anchor);
    for (let k = 1; k <= HORIZON; k++) {
      const actual = Math.exp(series.values[i + k] ?? Number.NaN);
      const yesterday = Math.exp(series.values[i + k - 24] ?? Number.NaN);
      // As in the back-test, a lead counts only where the yesterday baseline exists.
      if (Number.isNaN(yesterday)) continue;
      sums.model += Math.abs(Math.exp(path[k - 1] ?? Number.NaN) - actual);
      sums.persistence += Math.abs(current - actual);
      sums.sameHourYesterday += Math.abs(yesterday - actual);
      leads++;
    }
    origins++;
  }
  const mae = {
    model: sums.model / leads,
    persistence: sums.persistence / leads,
    sameHourYesterday: sums.sameHourYesterday / leads,
  };
  return {
    origins,
    mae,
    ratio: {
      vsPersistence: mae.model / mae.persistence,
      vsSameHourYesterday: mae.model / mae.sameHourYesterday,
    },
  };
}

/**
 * Returns the search objective over several series: the mean of every MAE ratio divided by its
 * target (0.65 vs persistence, 0.75 vs same hour yesterday), each series weighing the same however
 * long it is. Below 1 on average means the targets hold with room.
 */
export function objectiveOf(scores: readonly PointScore[]): number {
  let sum = 0;
  for (const s of scores) sum += s.ratio.vsPersistence / 0.65 + s.ratio.vsSameHourYesterday / 0.75;
  return sum / (2 * scores.length);
}
