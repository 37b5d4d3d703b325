/** Tunable constants of the forecaster and the decision; the method is in `forecast-gas.ts`. */
export interface ForecastParams {
  /** Weeks of history the hour-of-week profile learns from. */
  profileWeeks: number;
  /** Pseudo-count shrinking each hour-of-week median toward hour-of-day + day-of-week. */
  shrinkCount: number;
  /** Weeks of data the built-in profile is worth when blended with the learned one. */
  priorWeeks: number;
  /** Hourly scatter (median absolute log deviation) at which the built-in profile gets full weight. */
  priorNoiseScale: number;
  /** Hours before "now" whose deseasonalised median is the current level. */
  levelHours: number;
  /** Per-hour factor by which the transient part of the current reading's deviation persists. */
  anchorPersistence: number;
  /** Share of the current deviation that persists over the whole horizon (a level shift). */
  anchorFloor: number;
  /** Past forecast origins (hours) replayed to measure the error spread per lead time. */
  errorWindowHours: number;
  /** Log-space error spread assumed before any past error is seen (learned profile / fallback). */
  priorSigma: number;
  fallbackPriorSigma: number;
  /** Weight, in past errors, of the prior spread. */
  priorCount: number;
  /** Wait only if waiting is likely to save at least this share (0.1 = 10 %)... */
  waitMinSaving: number;
  /** ...with at least this probability under the measured error spread. */
  waitMinProbability: number;
  /** An hour is a low-fee window when cheaper than this quantile of a typical week at today's level. */
  lowFeeQuantile: number;
  /** Point confidence = probability that the outcome lands within this factor of the forecast. */
  confidenceTolerance: number;
}

/** Defaults, tuned on the first two thirds of both real hourly series in shared/data. */
export const DEFAULT_FORECAST_PARAMS: Readonly<ForecastParams> = {
  profileWeeks: 4,
  shrinkCount: 6,
  priorWeeks: 4,
  priorNoiseScale: 0.1,
  levelHours: 24,
  anchorPersistence: 0.8,
  anchorFloor: 0.2,
  errorWindowHours: 14 * 24,
  priorSigma: 0.35,
  fallbackPriorSigma: 0.5,
  priorCount: 48,
  waitMinSaving: 0.1,
  waitMinProbability: 0.6,
  lowFeeQuantile: 0.25,
  confidenceTolerance: 1.25,
};
