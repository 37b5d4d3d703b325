import { FALLBACK_PROFILE } from './fallback-profile';
import { countPresent, HOURS_PER_WEEK, type LogSeries } from './hourly-series';
import type { LogModel } from './log-model';
import type { ForecastParams } from './params';
import {
  blendProfiles,
  blendProfilesWithRhythm,
  learnSeasonalProfile,
  rhythmWeight,
  type SeasonalProfile,
} from './seasonal-profile';

/** Readings needed in the last week-long span before the learned profile is trusted. */
const MIN_LEARNED_READINGS = Math.round(HOURS_PER_WEEK * 0.75);

/** A fitted model and whether the built-in profile stood in for a learned one. */
export interface FittedModel {
  model: LogModel;
  usingFallback: boolean;
}

/**
 * Fits the log model to a history series holding only hours before `nowHour`: learns the weekly
 * shape and blends it with the built-in one, or lets the built-in one stand in alone when less than
 * 7 days of history exist (by the hours of the series, or `tooShort` when the caller knows the
 * history began less than 7 days ago though its oldest hour, a part of one, makes the span look a
 * week). Shared by the forecaster and the parameter search, so both fit the same; the search passes
 * a `prior` derived without the series it scores, so the built-in shape cannot smuggle that series'
 * own future weeks into its score.
 */
export function fitModel(
  series: LogSeries,
  nowHour: number,
  params: ForecastParams,
  prior: ArrayLike<number> = FALLBACK_PROFILE,
  tooShort = false,
): FittedModel {
  const readings = countPresent(series);
  const span = series.values.length === 0 ? 0 : nowHour - series.start;
  const usingFallback = tooShort || span < HOURS_PER_WEEK || readings < MIN_LEARNED_READINGS;
  if (usingFallback) {
    return { model: { series, profile: Float64Array.from(prior), params }, usingFallback };
  }
  const learned = learnSeasonalProfile(series, {
    weeks: params.profileWeeks,
    shrinkCount: params.shrinkCount,
  });
  // Clean history needs no prior; real gas, scattering about 0.1 in log around its shape, gets all of it.
  const priorWeeks = params.priorWeeks * Math.min(1, learned.noise / params.priorNoiseScale);
  const windowHours = params.profileWeeks * HOURS_PER_WEEK;
  const window = { start: nowHour - windowHours, values: series.values.slice(-windowHours) };
  const learnedWeeks = countPresent(window) / HOURS_PER_WEEK;
  const halves = learnHalves(series, nowHour - windowHours, params.shrinkCount);
  const profile = halves
    ? blendProfilesWithRhythm(
        learned.profile,
        learnedWeeks,
        prior,
        priorWeeks,
        rhythmWeight(learned.profile, halves[0], halves[1], prior),
      )
    : blendProfiles(learned.profile, learnedWeeks, prior, priorWeeks);
  return { model: { series, profile, params }, usingFallback };
}

/** Readings each half of the window needs before its daily rhythm is compared with the other's. */
const MIN_HALF_READINGS = 48;

/**
 * Learns the profile of the older and the newer half of the window from `fromHour` to the series'
 * end (split at whole days from its start, the older half rounded down), each on its own, so their
 * daily rhythms can be compared; undefined when a half holds too few readings (a gap in the store)
 * for its rhythm to mean anything.
 */
function learnHalves(
  series: LogSeries,
  fromHour: number,
  shrinkCount: number,
): [SeasonalProfile, SeasonalProfile] | undefined {
  const end = series.start + series.values.length;
  const from = Math.max(series.start, fromHour);
  const middle = from + Math.floor((end - from) / 48) * 24;
  const older = { start: from, values: series.values.subarray(from - series.start, middle - series.start) };
  const newer = { start: middle, values: series.values.subarray(middle - series.start) };
  if (countPresent(older) < MIN_HALF_READINGS || countPresent(newer) < MIN_HALF_READINGS) return undefined;
  const learn = (half: LogSeries) =>
    learnSeasonalProfile(half, { weeks: Number.POSITIVE_INFINITY, shrinkCount }).profile;
  return [learn(older), learn(newer)];
}
