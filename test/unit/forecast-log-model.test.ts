import { describe, expect, it } from 'vitest';
import type { LogSeries } from '../../lib/forecast/hourly-series';
import {
  anchorWeight,
  forecastLogPath,
  type LogModel,
  measureBaseline,
  measureDeviation,
  measureLevel,
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
