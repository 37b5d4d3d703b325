import { describe, expect, it } from 'vitest';
import { fitModel } from '../../lib/forecast/fit-model';
import { countPresent, HOURS_PER_WEEK, type LogSeries } from '../../lib/forecast/hourly-series';
import { DEFAULT_FORECAST_PARAMS } from '../../lib/forecast/params';
import {
  blendProfiles,
  blendProfilesWithRhythm,
  dailyRhythm,
  learnSeasonalProfile,
  rhythmWeight,
} from '../../lib/forecast/seasonal-profile';

/** A daily rhythm (log offsets by UTC hour of day): a night low and an afternoon peak. */
const RHYTHM = Array.from({ length: 24 }, (_, h) => Math.cos(((h - 15) / 24) * 2 * Math.PI));

/** A weekly profile with `scale` times RHYTHM on every day plus a weekday / weekend step. */
function weekly(scale: number, weekend = 0): Float64Array {
  return Float64Array.from({ length: HOURS_PER_WEEK }, (_, how) => {
    const day = Math.floor(how / 24);
    return scale * (RHYTHM[how % 24] ?? 0) + (day >= 5 ? -weekend : (weekend * 2) / 5);
  });
}

/** Deterministic noise in [-amplitude, amplitude] (a linear congruential generator). */
function noise(seed: number, amplitude: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (state / 2_147_483_648 - 0.5) * 2 * amplitude;
  };
}

/** Three weeks of hourly logs from Monday 00:00 UTC (hour 0 of the epoch week is a Thursday: start at 96). */
function series(rhythmScale: (hour: number) => number, seed = 1): LogSeries {
  const start = 96 + 52 * HOURS_PER_WEEK;
  const next = noise(seed, 0.15);
  const values = Float64Array.from({ length: 3 * HOURS_PER_WEEK }, (_, i) => {
    const hour = start + i;
    return Math.log(0.1) + rhythmScale(i) * (RHYTHM[hour % 24] ?? 0) + next();
  });
  return { start, values };
}

/** Expects two arrays equal to 12 decimals, element by element. */
function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(Array.from(actual)).toEqual(Array.from(expected, (v) => expect.closeTo(v, 12)));
}

const amplitude = (profile: ArrayLike<number>) => {
  const rhythm = dailyRhythm(profile);
  return (Math.max(...rhythm) - Math.min(...rhythm)) / 2;
};

describe('the daily rhythm of a weekly profile', () => {
  it('is each hour of day averaged over the seven days', () => {
    const rhythm = dailyRhythm(weekly(0.5, 0.2));
    expectClose(
      rhythm,
      RHYTHM.map((value) => 0.5 * value),
    );
  });

  it('earns the weight its repetition across the two halves of the window shows', () => {
    const prior = weekly(0.2);
    // Both halves depart from the prior alike: all of the departure repeats.
    expect(rhythmWeight(weekly(1), weekly(1), weekly(1), prior)).toBeCloseTo(1, 12);
    // Departures of opposite sign: nothing repeats, the prior's rhythm stands.
    expect(rhythmWeight(weekly(0.4), weekly(1), weekly(-0.6), prior)).toBe(0);
    // Halves that agree more than the whole window departs (a median's quirk): capped at all of it.
    expect(rhythmWeight(weekly(0.6), weekly(1), weekly(1), prior)).toBe(1);
    // The newer half departs half as far: (0.8 x 0.4) / 0.6^2 of the whole window's departure repeats.
    expect(rhythmWeight(weekly(0.8), weekly(1), weekly(0.6), prior)).toBeCloseTo(0.32 / 0.36, 12);
    // No departure at all: nothing to weigh.
    expect(rhythmWeight(prior, prior, prior, prior)).toBe(0);
  });

  it('takes its rhythm from the learned or the prior profile by that share, and blends the rest as before', () => {
    const learned = weekly(1, 0.3);
    const prior = weekly(0.2, 0.1);
    const plain = blendProfiles(learned, 3, prior, 4);
    for (const share of [0, 0.5, 1]) {
      const blended = blendProfilesWithRhythm(learned, 3, prior, 4, share);
      const rhythm = dailyRhythm(blended);
      expectClose(
        rhythm,
        RHYTHM.map((value) => (share + (1 - share) * 0.2) * value),
      );
      // Around its rhythm, each hour of the week is exactly as the plain blend has it.
      const plainRhythm = dailyRhythm(plain);
      expectClose(
        blended.map((value, how) => value - (rhythm[how % 24] ?? 0)),
        plain.map((value, how) => value - (plainRhythm[how % 24] ?? 0)),
      );
    }
  });
});

describe('fitting the weekly shape', () => {
  const prior = weekly(0.2);
  const at = (s: LogSeries) => s.start + s.values.length;

  it('keeps a strong rhythm that repeats on every day, where the plain blend would flatten it', () => {
    const strong = series(() => 1);
    const fitted = fitModel(strong, at(strong), DEFAULT_FORECAST_PARAMS, prior).model.profile;
    expect(amplitude(fitted)).toBeGreaterThan(0.9);
    // The plain blend (three weeks learned against the prior's four) keeps well under two thirds of it.
    expect(amplitude(blendProfiles(weekly(1), 3, prior, 4))).toBeLessThan(0.6);
  });

  it('keeps the prior rhythm when the rhythm of the older half is gone from the newer one', () => {
    const fading = series((i) => (i < (3 * HOURS_PER_WEEK) / 2 ? 1 : 0));
    const fitted = fitModel(fading, at(fading), DEFAULT_FORECAST_PARAMS, prior).model.profile;
    const priorRhythm = dailyRhythm(prior);
    // The plain blend would keep a third of the departed rhythm (amplitude 0.34 against the prior's 0.2).
    for (const [h, value] of dailyRhythm(fitted).entries()) expect(value).toBeCloseTo(priorRhythm[h] ?? 0, 2);
  });

  it('blends as before when a gap leaves one half of the window too thin to compare', () => {
    const gappy = series(() => 1);
    // The store was down for most of the newer half: 42 readings are left in it, under the 48 needed.
    gappy.values.fill(Number.NaN, gappy.values.length / 2, gappy.values.length - 30);
    const params = DEFAULT_FORECAST_PARAMS;
    const fitted = fitModel(gappy, at(gappy), params, prior);
    expect(fitted.usingFallback).toBe(false);
    const learned = learnSeasonalProfile(gappy, {
      weeks: params.profileWeeks,
      shrinkCount: params.shrinkCount,
    });
    const priorWeeks = params.priorWeeks * Math.min(1, learned.noise / params.priorNoiseScale);
    const learnedWeeks = countPresent(gappy) / HOURS_PER_WEEK;
    const plain = blendProfiles(learned.profile, learnedWeeks, prior, priorWeeks);
    expectClose(fitted.model.profile, plain);
  });
});
