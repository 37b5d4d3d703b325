import { valueAt } from './hourly-series';
import { forecastLogPath, type LogModel, recentShapes } from './log-model';
import { normalCdf, trimmedRms } from './stats';

/** Past forecast errors per lead time: a log-space sigma and how many errors it rests on. */
export interface ErrorSpread {
  /** `sigmas[k - 1]` is the spread of the log error `k` hours ahead. */
  sigmas: number[];
  /** `samples[k - 1]` is the number of past errors behind `sigmas[k - 1]`. */
  samples: number[];
  /** `errors[k - 1]` holds the replayed log errors (actual - forecast) `k` hours ahead. */
  errors: number[][];
}

/**
 * Measures how wrong this model has recently been at each lead time by replaying it from past
 * origins in the history (each forecast sees only the hours before its origin; the weekly profile
 * is today's, a small optimism accepted so one request stays cheap). Each lead's robust error spread
 * is then blended with `priorSigma`, worth `priorCount` errors, so thin history gives a wide, humble
 * spread rather than an overconfident one.
 */
export function measureErrorSpread(
  model: LogModel,
  originHour: number,
  leads: number,
  priorSigma: number,
): ErrorSpread {
  const errors: number[][] = Array.from({ length: leads }, () => []);
  const first = Math.max(model.series.start, originHour - model.params.errorWindowHours);
  const shapes = recentShapes(model, first);
  for (let past = first; past < originHour - 1; past++) {
    const recent = shapes.next().value;
    const anchor = valueAt(model.series, past);
    if (Number.isNaN(anchor)) continue;
    const reach = Math.min(leads, originHour - 1 - past);
    const path = forecastLogPath(model, past, anchor, reach, recent);
    for (let k = 1; k <= reach; k++) {
      const actual = valueAt(model.series, past + k);
      if (!Number.isNaN(actual)) errors[k - 1]?.push(actual - (path[k - 1] ?? 0));
    }
  }
  const prior = model.params.priorCount;
  const sigmas = errors.map((list) => {
    if (list.length === 0) return priorSigma;
    const measured = trimmedRms(list);
    return Math.sqrt((list.length * measured ** 2 + prior * priorSigma ** 2) / (list.length + prior));
  });
  return { sigmas, samples: errors.map((list) => list.length), errors };
}

/**
 * Returns the probability that the outcome lands within a factor `tolerance` of the forecast
 * (e.g. 1.25: between 80 % and 125 % of it), given a log-space error spread: a confidence that
 * reads the same at 0.3 gwei as at 30 gwei.
 */
export function confidenceFromSigma(sigma: number, tolerance: number): number {
  if (!(sigma > 0)) return 1;
  const z = Math.log(tolerance) / sigma;
  return Math.max(0, Math.min(1, 2 * normalCdf(z) - 1));
}
