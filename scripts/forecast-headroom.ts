/**
 * How much better could the forecaster get, and where is its error? On tuning data only:
 *
 *   npx tsx scripts/forecast-headroom.ts [--data-dir ../shared/data]
 *
 * Scores 24-hour point forecasts (as the back-test walks them: 7-day warm-up, MAE over all origins
 * and leads, against persistence and same hour yesterday) on three development series: the tuning
 * parts (first two thirds) of the two 2024 series the back-test scores, and the whole 2021
 * base-fee series, which the back-test never scores (its times are interpolated, about 1 h off, so
 * it is a harder test of the shape; since 2026-11-26 the forecast search scores its first two
 * thirds). Each series gets a built-in profile derived without it. For each it prints the
 * shipped model's ratios and those of the same model told the coming day's level (the median of the
 * actual, deseasonalised next 24 hours): the gap between the two is what any better level forecast
 * could win at most; the rest is the shape's own error. Prints JSON.
 */
import { parseArgs } from 'node:util';
import { buildLogSeries } from '../lib/forecast/hourly-series';
import { DEFAULT_FORECAST_PARAMS } from '../lib/forecast/params';
import type { SeasonalProfile } from '../lib/forecast/seasonal-profile';
import { type PointScore, scorePointForecasts } from '../lib/forecast/tune-score';
import {
  readSourceRows,
  readTuningRows,
  SCORED_SERIES,
  SERIES_2021,
  withLeaveOneOutPriors,
} from './lib/tuning-data';

const { values: args } = parseArgs({
  options: { 'data-dir': { type: 'string', default: '../shared/data' } },
});
const dataDir = args['data-dir'] ?? '';

const sources = [
  ...SCORED_SERIES.map((source) => ({ source, part: 'tuning part (first two thirds)' })),
  { source: SERIES_2021, part: 'whole (first two thirds in the forecast search)' },
];
const series = [
  ...(await Promise.all(SCORED_SERIES.map((source) => readTuningRows(dataDir, source)))),
  await readSourceRows(dataDir, SERIES_2021),
].map((rows) => buildLogSeries(rows));

const ratios = (score: PointScore) => ({
  vsPersistence: Number(score.ratio.vsPersistence.toFixed(3)),
  vsSameHourYesterday: Number(score.ratio.vsSameHourYesterday.toFixed(3)),
});
const report = withLeaveOneOutPriors(series).map(({ series: s, prior }, i) => {
  const cache = new Map<string, (SeasonalProfile | undefined)[]>();
  const model = scorePointForecasts(s, DEFAULT_FORECAST_PARAMS, cache, prior);
  const knownLevel = scorePointForecasts(s, DEFAULT_FORECAST_PARAMS, cache, prior, true);
  return {
    file: sources[i]?.source.file,
    part: sources[i]?.part,
    origins: model.origins,
    model: ratios(model),
    modelToldTheDaysLevel: ratios(knownLevel),
  };
});
console.log(
  JSON.stringify(
    { note: 'Ratios are MAE over MAE of the baseline; no held-out hour is read.', report },
    null,
    2,
  ),
);
