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
  /** Hours before "now" whose deseasonalised, recency-weighted median is the current level. */
  levelHours: number;
  /** Half-life (hours) of the weight of an hour in the level (Infinity: a plain median). */
  levelHalfLifeHours: number;
  /** Hours before "now" whose deseasonalised median is the baseline the level drifts back to. */
  reversionHours: number;
  /** Per-hour factor by which the level's gap to that baseline persists (1: no drift back). */
  levelPersistence: number;
  /** Hours before the current reading that join it in measuring the current deviation. */
  deviationHours: number;
  /** Half-life (hours) of their weight against the current reading's 1. */
  deviationHalfLifeHours: number;
  /** Days whose hour-of-day departure from the weekly shape corrects it (0: off). */
  recentShapeDays: number;
  /** Share of that recent departure added to the weekly shape. */
  recentShapeWeight: number;
  /** Per-hour factor by which the transient part of the current reading's deviation persists. */
  anchorPersistence: number;
  /** Share of the current deviation that persists over the whole horizon (a level shift). */
  anchorFloor: number;
  /** Per-hour factor by which a jump under way (deviation above `jumpFactor`) persists. */
  jumpPersistence: number;
  /** Past forecast origins (hours) replayed to measure the error spread per lead time. */
  errorWindowHours: number;
  /** Log-space error spread assumed before any past error is seen (learned profile / fallback). */
  priorSigma: number;
  fallbackPriorSigma: number;
  /** Weight, in past errors, of the prior spread. */
  priorCount: number;
  /** Wait only if the expected saving, jumps included, is at least this share of now (0.1 = 10 %)... */
  waitMinSaving: number;
  /** ...and at least this many gwei... */
  waitMinSavingGwei: number;
  /** ...and, when an ETH price is known, at least this many USD on a 21,000-gas transfer... */
  waitMinSavingUsd: number;
  /** ...and the chance of ending dearer than now is at most this... */
  waitMaxDearerProbability: number;
  /** ...and the chance of ending above twice now is at most this. */
  waitMaxSevereProbability: number;
  /** Share of saving a wait must add per hour waited (a farther hour must save clearly more). */
  waitCostPerHour: number;
  /** Send now when the current price ranks at or below this percentile of the last 7 days. */
  sendNowPercentile: number;
  /** A jump: a deseasonalised hour more than this factor above the median of the 24 before it. */
  jumpFactor: number;
  /** Prior jump rate: this many jumps per `jumpPriorHours` hours, blended with the series' own count. */
  jumpPriorEvents: number;
  jumpPriorHours: number;
  /** Prior jump size (multiplier) and duration (hours), counted as one jump among the series' own. */
  jumpPriorMultiplier: number;
  jumpPriorDurationHours: number;
  /** An hour is a low-fee window when cheaper than this quantile of a typical week at today's level. */
  lowFeeQuantile: number;
  /** Point confidence = probability that the outcome lands within this factor of the forecast. */
  confidenceTolerance: number;
}

/**
 * Defaults chosen by `npx tsx scripts/tune-forecast.ts` (coordinate descent on the first two thirds
 * of the real hourly series in shared/data, each scored with a built-in profile made without it;
 * a move must gain at least 0.003 in the objective; since 2026-11-26 it scores the 2021 series and
 * the 2026 sample too, and from these defaults, with the daily rhythm weighted by its repetition
 * in `fit-model.ts`, it moves nothing). The recent hour-of-day correction is on: the
 * last 10 days' departure from the weekly shape at each hour of day, at half weight (the search
 * first missed it, trying its days and weight one at a time while the other was 0; it now tries
 * them as pairs). The search also tried a recency-weighted level, a multi-day drift-back of the
 * level and a deviation smoothed over recent hours; none scored better, so they stay off
 * (half-life Infinity, persistence 1, 0 hours). The decision's constants (wait*, jumpPriorHours,
 * jumpPriorMultiplier) were chosen on tuning data only (the first two thirds of the scored series,
 * the 2021 series, and spiked copies of them) by an earlier `npx tsx scripts/tune-decision.ts` with
 * one spiked copy per series; they are within 0.003 of its best objective, except waitMinSaving,
 * raised from 0.05 to 0.1 with the daily-rhythm weighting (2026-11-26): with the sharper rhythm,
 * 0.05 ended 15.4 % of the base-fee tuning part's waits dearer (the bound is 15 %), 0.1 ended 13.8 %
 * (docs/forecast-experiments.md, "Tried later"). That search also tried
 * sendNowPercentile 0, and every better set switched the 7-day-low rule off; the issue asks for the
 * rule, so it stays at 10, and the current search no longer varies it. The current search (8 spike
 * placements per series, the tail bound ranked first) ranks another set first (waitMinSaving 0.1,
 * waitMaxDearerProbability 0.3, waitMaxSevereProbability 0.015, jumpPriorMultiplier 20, the rest as
 * here); it is not shipped: on the tuning parts of the README's 20-placement stress test it ended
 * about as many waits above twice the send-now price (2.5 % against 2.6 % on the base-fee series)
 * and kept less of the oracle's saving on the owlracle and 2026 series (docs/forecast-experiments.md,
 * "Where the decision's constants come from"). The jump factor, jumpPriorEvents, the prior duration, the
 * 7-day-low percentile and the USD and gwei floors are stated, not searched.
 */
export const DEFAULT_FORECAST_PARAMS: Readonly<ForecastParams> = {
  profileWeeks: 3,
  shrinkCount: 2,
  priorWeeks: 4,
  priorNoiseScale: 0.1,
  levelHours: 24,
  levelHalfLifeHours: Number.POSITIVE_INFINITY,
  reversionHours: 168,
  levelPersistence: 1,
  deviationHours: 0,
  deviationHalfLifeHours: 1,
  recentShapeDays: 10,
  recentShapeWeight: 0.5,
  anchorPersistence: 0.75,
  anchorFloor: 0.1,
  jumpPersistence: 0.5,
  errorWindowHours: 14 * 24,
  priorSigma: 0.35,
  fallbackPriorSigma: 0.5,
  priorCount: 48,
  waitMinSaving: 0.1,
  waitMinSavingGwei: 0.001,
  waitMinSavingUsd: 0.001,
  waitMaxDearerProbability: 0.45,
  waitMaxSevereProbability: 0.02,
  waitCostPerHour: 0.002,
  sendNowPercentile: 10,
  jumpFactor: 3,
  jumpPriorEvents: 1,
  jumpPriorHours: 1440,
  jumpPriorMultiplier: 10,
  jumpPriorDurationHours: 4,
  lowFeeQuantile: 0.25,
  confidenceTolerance: 1.25,
};
