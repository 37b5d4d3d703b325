import type { LogSeries } from './hourly-series';
import { learnSeasonalProfile } from './seasonal-profile';

/**
 * Returns the built-in kind of hour-of-week profile for a set of series: each learned with the
 * forecaster's own profile learner over all its weeks, then averaged with equal weight (a typical
 * shape across eras and fee measures, not one period's), rounded to 4 decimals. Used to make the
 * shipped fallback profile and, leaving the scored series out, the prior the parameter search uses.
 */
export function deriveAverageProfile(series: readonly LogSeries[]): number[] {
  const profiles = series.map(
    (s) => learnSeasonalProfile(s, { weeks: Number.POSITIVE_INFINITY, shrinkCount: 6 }).profile,
  );
  return Array.from({ length: 168 }, (_, how) => {
    const mean = profiles.reduce((sum, p) => sum + (p[how] ?? 0), 0) / Math.max(1, profiles.length);
    return Math.round(mean * 10_000) / 10_000;
  });
}
