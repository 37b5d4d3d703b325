import { HOURS_PER_WEEK, hourOfWeek, type LogSeries } from './hourly-series';
import { median } from './stats';

/** Log offsets from the weekly level for each UTC hour of the week (Monday 00:00 = 0); mean zero. */
export type SeasonalProfile = Float64Array;

/** A learned profile and how far single hours scatter around it (median absolute log deviation). */
export interface LearnedProfile {
  profile: SeasonalProfile;
  noise: number;
}

export interface ProfileOptions {
  /** How many recent weeks the profile learns from. */
  weeks: number;
  /**
   * Pseudo-count pulling each hour-of-week median toward the additive hour-of-day + day-of-week
   * shape; with few weeks one noisy Tuesday 14:00 must not define every future Tuesday 14:00.
   */
  shrinkCount: number;
}

const LEVEL_HALF_WIDTH_DAYS = 3;
const MIN_HOURS_PER_DAY = 6;
const ITERATIONS = 3;

/** Groups values by key into arrays (keys 0..size-1). */
function buckets(size: number): number[][] {
  return Array.from({ length: size }, () => []);
}

/**
 * Learns the hour-of-week shape of the last `weeks` weeks: each hour is measured against a smooth
 * weekly level (a 7-day mean of daily medians of the deseasonalised series), and each hour of the
 * week takes the median of those deviations, shrunk toward the hour-of-day + day-of-week medians.
 * Medians everywhere keep a one-hour spike from leaving a trace. A few passes let the level and the
 * shape settle without the level soaking up the weekend dip.
 */
export function learnSeasonalProfile(series: LogSeries, options: ProfileOptions): LearnedProfile {
  const from = Math.max(0, series.values.length - options.weeks * HOURS_PER_WEEK);
  const hours: number[] = [];
  const logs: number[] = [];
  for (let i = from; i < series.values.length; i++) {
    const v = series.values[i] ?? Number.NaN;
    if (!Number.isNaN(v)) {
      hours.push(series.start + i);
      logs.push(v);
    }
  }
  let profile: SeasonalProfile = new Float64Array(HOURS_PER_WEEK);
  if (logs.length === 0) return { profile, noise: 0 };
  const firstDay = Math.floor((hours[0] ?? 0) / 24);
  const dayCount = Math.floor((hours[hours.length - 1] ?? 0) / 24) - firstDay + 1;

  let scatter: number[] = [];
  for (let pass = 0; pass < ITERATIONS; pass++) {
    const perDay = buckets(dayCount);
    hours.forEach((hour, i) => {
      perDay[Math.floor(hour / 24) - firstDay]?.push((logs[i] ?? 0) - (profile[hourOfWeek(hour)] ?? 0));
    });
    const dailyLevel = perDay.map((day) => (day.length >= MIN_HOURS_PER_DAY ? median(day) : Number.NaN));
    const weeklyLevel = dailyLevel.map((_, d) => {
      let sum = 0;
      let n = 0;
      for (let j = d - LEVEL_HALF_WIDTH_DAYS; j <= d + LEVEL_HALF_WIDTH_DAYS; j++) {
        const v = dailyLevel[j];
        if (v !== undefined && !Number.isNaN(v)) {
          sum += v;
          n++;
        }
      }
      return n > 0 ? sum / n : Number.NaN;
    });

    const residuals: number[] = [];
    hours.forEach((hour, i) => {
      residuals.push((logs[i] ?? 0) - (weeklyLevel[Math.floor(hour / 24) - firstDay] ?? Number.NaN));
    });
    profile = shapeFromResiduals(hours, residuals, options.shrinkCount);
    const shaped = profile;
    scatter = residuals
      .map((r, i) => Math.abs(r - (shaped[hourOfWeek(hours[i] ?? 0)] ?? 0)))
      .filter((v) => !Number.isNaN(v));
  }
  return { profile, noise: scatter.length > 0 ? median(scatter) : 0 };
}

/** Turns deviations from the weekly level into a centred, shrunk hour-of-week profile. */
function shapeFromResiduals(hours: number[], residuals: number[], shrinkCount: number): SeasonalProfile {
  const byDay = buckets(7);
  hours.forEach((hour, i) => {
    const r = residuals[i] ?? Number.NaN;
    if (!Number.isNaN(r)) byDay[Math.floor(hourOfWeek(hour) / 24)]?.push(r);
  });
  const dayEffect = byDay.map((values) => (values.length > 0 ? median(values) : 0));

  const byHourOfDay = buckets(24);
  const byHourOfWeek = buckets(HOURS_PER_WEEK);
  hours.forEach((hour, i) => {
    const r = residuals[i] ?? Number.NaN;
    if (Number.isNaN(r)) return;
    const how = hourOfWeek(hour);
    byHourOfDay[how % 24]?.push(r - (dayEffect[Math.floor(how / 24)] ?? 0));
    byHourOfWeek[how]?.push(r);
  });
  const hourEffect = byHourOfDay.map((values) => (values.length > 0 ? median(values) : 0));

  const profile = new Float64Array(HOURS_PER_WEEK);
  for (let how = 0; how < HOURS_PER_WEEK; how++) {
    const additive = (dayEffect[Math.floor(how / 24)] ?? 0) + (hourEffect[how % 24] ?? 0);
    const own = byHourOfWeek[how] ?? [];
    const weight = own.length / (own.length + shrinkCount);
    profile[how] = own.length > 0 ? additive + weight * (median(own) - additive) : additive;
  }
  const mean = profile.reduce((a, b) => a + b, 0) / HOURS_PER_WEEK;
  return profile.map((v) => v - mean);
}

/**
 * Blends a learned profile with a prior one, the prior counting as `priorWeeks` weeks of data: a
 * fortnight of history cannot pin down 168 hourly shapes alone, so the built-in shape carries the
 * estimate until enough weeks accumulate.
 */
export function blendProfiles(
  learned: SeasonalProfile,
  learnedWeeks: number,
  prior: ArrayLike<number>,
  priorWeeks: number,
): SeasonalProfile {
  const total = learnedWeeks + priorWeeks;
  if (total <= 0) return Float64Array.from(prior);
  return learned.map((value, how) => (learnedWeeks * value + priorWeeks * (prior[how] ?? 0)) / total);
}

/** The daily rhythm of a weekly profile: each UTC hour of day's mean over the seven days. */
export function dailyRhythm(profile: ArrayLike<number>): Float64Array {
  const rhythm = new Float64Array(24);
  for (let how = 0; how < HOURS_PER_WEEK; how++) {
    rhythm[how % 24] = (rhythm[how % 24] ?? 0) + (profile[how] ?? 0) / 7;
  }
  return rhythm;
}

/**
 * Returns how much of a learned daily rhythm's departure from the prior's to believe: the
 * covariance of the departures learned from the older and the newer half of the window (what
 * repeats) over the square of the whole window's departure, within 0 to 1. Sampling noise and a
 * rhythm that came and went do not repeat across the halves, so they earn no weight; a regime
 * whose rhythm differs from the prior's on every day earns nearly all of it.
 */
export function rhythmWeight(
  learned: ArrayLike<number>,
  older: ArrayLike<number>,
  newer: ArrayLike<number>,
  prior: ArrayLike<number>,
): number {
  const whole = dailyRhythm(learned);
  const first = dailyRhythm(older);
  const second = dailyRhythm(newer);
  const base = dailyRhythm(prior);
  let repeated = 0;
  let departure = 0;
  for (let h = 0; h < 24; h++) {
    const p = base[h] ?? 0;
    repeated += ((first[h] ?? 0) - p) * ((second[h] ?? 0) - p);
    departure += ((whole[h] ?? 0) - p) ** 2;
  }
  return departure > 0 ? Math.min(1, Math.max(0, repeated / departure)) : 0;
}

/**
 * Blends a learned profile with a prior one in two parts. The detail of the 168 hours of the week
 * (each around its hour of day's mean) blends as in `blendProfiles`: a few weeks cannot pin down
 * 168 shapes. The daily rhythm, seen on every day of the window, takes the learned one's share
 * `rhythmShare` (see `rhythmWeight`); the built-in rhythm, an average over eras whose peak hours
 * differ, is flatter than any one series' own (2026's afternoon peak is five times its height).
 */
export function blendProfilesWithRhythm(
  learned: SeasonalProfile,
  learnedWeeks: number,
  prior: ArrayLike<number>,
  priorWeeks: number,
  rhythmShare: number,
): SeasonalProfile {
  const detail = blendProfiles(learned, learnedWeeks, prior, priorWeeks);
  const blendedRhythm = dailyRhythm(detail);
  const learnedRhythm = dailyRhythm(learned);
  const priorRhythm = dailyRhythm(prior);
  return detail.map((value, how) => {
    const h = how % 24;
    const rhythm = rhythmShare * (learnedRhythm[h] ?? 0) + (1 - rhythmShare) * (priorRhythm[h] ?? 0);
    return value - (blendedRhythm[h] ?? 0) + rhythm;
  });
}
