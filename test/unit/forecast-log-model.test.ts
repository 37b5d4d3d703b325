import { describe, expect, it } from 'vitest';
import type { LogSeries } from '../../lib/forecast/hourly-series';
import {
  anchorWeight,
  forecastLogPath,
  type LogModel,
  measureBaseline,
  measureDeviation,
  measureLevel,
  measureRecentShape,
  recentShapes,
} from '../../lib/forecast/log-model';
import { DEFAULT_FORECAST_PARAMS, type ForecastParams } from '../../lib/forecast/params';
import { median, weightedMedian } from '../../lib/forecast/stats';

/** A model over log values for hours 0..n-1 with a flat weekly shape, so deseasonalised = raw. */
function flatModel(values: number[], overrides: Partial<ForecastParams> = {}): LogModel {
  const series: LogSeries = { start: 0, values: Float64Array.from(values) };
  return { series, profile: new Float64Array(168), params: { ...DEFAULT_FORECAST_PARAMS, ...overrides } };
}

describe('weightedMedian', () => {
  it('equals the plain median under equal weights, odd and even counts', () => {
    expect(weightedMedian([5, 1, 3], [1, 1, 1])).toBe(median([5, 1, 3]));
    expect(weightedMedian([4, 1, 3, 10], [2, 2, 2, 2])).toBe(median([4, 1, 3, 10]));
  });

  it('follows the heavy values and ignores a light outlier', () => {
    expect(weightedMedian([1, 2, 100], [5, 1, 1])).toBe(1);
    expect(weightedMedian([1, 2, 100], [1, 1, 5])).toBe(100);
    expect(weightedMedian([], [])).toBeNaN();
  });
});

describe('log model pieces', () => {
  it('measures a level that follows a recent step faster with a short half-life', () => {
    // 18 hours at 0, then 6 at 1: the plain median stays at 0, a 3-hour half-life sees the step.
    const values = [...Array(18).fill(0), ...Array(6).fill(1)];
    expect(measureLevel(flatModel(values, { levelHalfLifeHours: Number.POSITIVE_INFINITY }), 24)).toBe(0);
    expect(measureLevel(flatModel(values, { levelHalfLifeHours: 3 }), 24)).toBe(1);
  });

  it('gives no level when fewer than a quarter of the hours hold a reading', () => {
    const values = Array(24).fill(Number.NaN);
    values[23] = 2;
    expect(measureLevel(flatModel(values), 24)).toBeNaN();
    expect(measureBaseline(flatModel(values), 24)).toBeNaN();
  });

  it('lets recent hours outvote one odd current reading in the deviation', () => {
    const values = Array(48).fill(0.5);
    const alone = flatModel(values, { deviationHours: 0 });
    const joined = flatModel(values, { deviationHours: 3, deviationHalfLifeHours: 2 });
    // Current reading 2 log units above a level of 0: alone it is the whole deviation.
    expect(measureDeviation(alone, 48, 2, 0)).toBe(2);
    expect(measureDeviation(joined, 48, 2, 0)).toBe(0.5);
  });

  it('fades the deviation to its floor and drifts the level back to the baseline', () => {
    const params = { ...DEFAULT_FORECAST_PARAMS, anchorPersistence: 0.5, anchorFloor: 0.25 };
    expect(anchorWeight(params, 1)).toBeCloseTo(0.625, 12);
    expect(anchorWeight(params, 60)).toBeCloseTo(0.25, 12);
    // A week at 0, the last day at 1: level 1, baseline 0, drifting back at 0.9 per hour.
    const values = [...Array(144).fill(0), ...Array(24).fill(1)];
    const model = flatModel(values, {
      levelHours: 24,
      levelHalfLifeHours: Number.POSITIVE_INFINITY,
      reversionHours: 168,
      levelPersistence: 0.9,
      deviationHours: 0,
      anchorFloor: 0,
      anchorPersistence: 0.5,
    });
    const path = forecastLogPath(model, 168, 1, 48);
    expect(path[0]).toBeCloseTo(0.9, 12);
    expect(path[47]).toBeCloseTo(0.9 ** 48, 12);
    const still = forecastLogPath({ ...model, params: { ...model.params, levelPersistence: 1 } }, 168, 1, 48);
    expect(still.every((v) => Math.abs(v - 1) < 1e-12)).toBe(true);
  });
});

describe('recent hour-of-day shape', () => {
  /** The definition, measured from scratch: per hour of day, median minus the overall median. */
  function reference(model: LogModel, origin: number): number[] {
    const { recentShapeDays: days, recentShapeWeight: weight } = model.params;
    const byHour: number[][] = Array.from({ length: 24 }, () => []);
    const all: number[] = [];
    for (let hour = origin - days * 24; hour < origin; hour++) {
      const v =
        (model.series.values[hour - model.series.start] ?? Number.NaN) -
        (model.profile[(hour + 72) % 168] ?? 0);
      if (Number.isNaN(v)) continue;
      byHour[hour % 24]?.push(v);
      all.push(v);
    }
    return byHour.map((values) => (values.length * 2 >= days ? weight * (median(values) - median(all)) : 0));
  }

  // Three weeks of noisy hours with a gap of two days and scattered missing hours; a shaped profile.
  const values = Array.from({ length: 21 * 24 }, (_, i) =>
    (i >= 200 && i < 248) || i % 37 === 0 ? Number.NaN : Math.sin(i / 3.7) + ((i * 7919) % 101) / 50,
  );
  const model: LogModel = {
    series: { start: 0, values: Float64Array.from(values) },
    profile: Float64Array.from({ length: 168 }, (_, how) => Math.cos((2 * Math.PI * how) / 24) / 4),
    params: { ...DEFAULT_FORECAST_PARAMS, recentShapeDays: 7, recentShapeWeight: 0.5 },
  };

  it('measures each origin as the definition says, including an hour of day seen too rarely', () => {
    for (const origin of [170, 250, 300, 21 * 24]) {
      expect(Array.from(measureRecentShape(model, origin))).toEqual(reference(model, origin));
    }
    // Two days back from hour 250, only hours 248 and 249 survive the gap: the other hours of day
    // are seen on fewer than half the days and get no correction.
    const early = measureRecentShape({ ...model, params: { ...model.params, recentShapeDays: 2 } }, 250);
    expect(Array.from(early)).toEqual(
      reference({ ...model, params: { ...model.params, recentShapeDays: 2 } }, 250),
    );
    expect(early.some((v) => v === 0)).toBe(true);
  });

  it('slides over consecutive origins to the same values as measuring each alone', () => {
    const sweep = recentShapes(model, 100);
    for (let origin = 100; origin < 21 * 24 + 24; origin++) {
      expect(Array.from(sweep.next().value)).toEqual(reference(model, origin));
    }
  });

  it('is all zero when switched off', () => {
    const off = { ...model, params: { ...model.params, recentShapeWeight: 0 } };
    expect(Array.from(measureRecentShape(off, 300))).toEqual(Array(24).fill(0));
    expect(Array.from(recentShapes(off, 300).next().value)).toEqual(Array(24).fill(0));
  });
});
