import { type OriginOutcome, type SegmentReport, summariseOutcomes } from './backtest-metrics';
import { withinTolerance } from './calibration';
import { forecastGas } from './forecast-gas';
import { HELD_OUT_SHARE, heldOutStart } from './held-out';
import { decideByHourOfDay } from './hour-of-day-baseline';
import { buildLogSeries, HOUR_MS } from './hourly-series';
import { DEFAULT_FORECAST_PARAMS, type ForecastParams } from './params';
import { roundSignificant } from './stats';
import type { HourlyGasPoint } from './types';

/** How the walk-forward runs. */
export interface BacktestOptions {
  /** Hours at the start used only as history, never scored (the forecaster needs 7 days). */
  warmupHours?: number;
  /** Share of the aligned series, from its end, reported separately as held-out. */
  heldOutShare?: number;
  params?: ForecastParams;
  /** ETH/USD to judge savings in USD by (none: the decision's USD floor is not applied). */
  ethUsd?: number;
  /** Called once per scored origin with what the forecaster said, for `--predictions-out`. */
  onOrigin?: (record: OriginRecord) => void;
}

/** One forecast origin as written to `--predictions-out`, enough to recompute every metric. */
export interface OriginRecord {
  origin: string;
  current: number;
  predictions: { timestamp: string; average: number }[];
  decision: { recommendation: 'wait' | 'send_now'; nextBestAt: string | null };
}

/** The back-test result: the whole scored span, the tuning part and the held-out part. */
export interface BacktestReport {
  hours: number;
  firstHour: string;
  lastHour: string;
  warmupHours: number;
  horizonHours: number;
  skippedOrigins: number;
  whole: SegmentReport;
  tuning: SegmentReport;
  heldOut: SegmentReport;
}

const HORIZON = 24;

/**
 * Walks forward hour by hour through a series, forecasting the next 24 hours at each origin from
 * the hours before it only (the origin's own value is the "current reading"), and scores model,
 * persistence and same-hour-yesterday, plus the realized saving of following the decision. Rows
 * are aligned to the whole hour they fall in (several in one hour: geometric mean). Origins whose
 * current value or any of the next 24 hours is missing are skipped and counted.
 */
export function runBacktest(
  rows: readonly { time: number; value: number }[],
  options: BacktestOptions = {},
): BacktestReport {
  const warmup = options.warmupHours ?? 168;
  const params = options.params ?? DEFAULT_FORECAST_PARAMS;
  const series = buildLogSeries(rows);
  const values = Array.from(series.values, (v) => Math.exp(v));
  const n = values.length;
  const heldOutFrom = heldOutStart(n, options.heldOutShare ?? HELD_OUT_SHARE);
  const timeOf = (index: number) => new Date((series.start + index) * HOUR_MS).toISOString();
  const points: HourlyGasPoint[] = values.map((value, i) => ({
    time: (series.start + i) * HOUR_MS,
    low: value,
    average: value,
    high: value,
  }));
  const present = points.filter((p) => Number.isFinite(p.average));
  const indexOfPresent = present.map((p) => p.time / HOUR_MS - series.start);

  const outcomes: OriginOutcome[] = [];
  let skipped = 0;
  let historyEnd = 0;
  for (let i = warmup; i + HORIZON < n; i++) {
    const window = values.slice(i, i + HORIZON + 1);
    if (window.some((v) => !Number.isFinite(v))) {
      skipped++;
      continue;
    }
    while (historyEnd < present.length && (indexOfPresent[historyEnd] ?? n) < i) historyEnd++;
    const current = values[i] ?? Number.NaN;
    const forecast = forecastGas(
      {
        history: present.slice(0, historyEnd),
        current: { low: current, average: current, high: current },
        now: (series.start + i) * HOUR_MS,
        horizon: '24h',
        ethUsd: options.ethUsd,
      },
      params,
    );
    const waited = forecast.decision.recommendation === 'wait';
    const chosen = waited ? Date.parse(forecast.decision.nextBestAt) / HOUR_MS - series.start : i;
    const baseline = decideByHourOfDay(values, i, series.start % 24, HORIZON);
    const leads = forecast.predictions.map((prediction, k) => {
      const actual = values[i + k + 1] ?? Number.NaN;
      const yesterday = values[i + k + 1 - 24] ?? Number.NaN;
      return {
        actual,
        model: Math.abs(prediction.average - actual),
        persistence: Math.abs(current - actual),
        sameHourYesterday: Math.abs(yesterday - actual),
      };
    });
    outcomes.push({
      index: i,
      leads: leads.filter((lead) => Number.isFinite(lead.sameHourYesterday)),
      current,
      cheapest: Math.min(...window),
      model: { paid: values[chosen] ?? current, waited },
      baseline: { paid: values[i + baseline.lead] ?? current, waited: baseline.lead > 0 },
      calibration: forecast.predictions.map((p, k) => ({
        confidence: p.confidence,
        hit: withinTolerance(p.average, values[i + k + 1] ?? Number.NaN, params.confidenceTolerance),
      })),
    });
    options.onOrigin?.({
      origin: timeOf(i),
      current: roundSignificant(current, 6),
      predictions: forecast.predictions.map((p) => ({ timestamp: p.timestamp, average: p.average })),
      decision: {
        recommendation: forecast.decision.recommendation,
        nextBestAt: waited ? forecast.decision.nextBestAt : null,
      },
    });
  }
  return {
    hours: n,
    firstHour: timeOf(0),
    lastHour: timeOf(n - 1),
    warmupHours: warmup,
    horizonHours: HORIZON,
    skippedOrigins: skipped,
    whole: summariseOutcomes(outcomes, timeOf),
    // Tuning origins see only the first two thirds, their 24-hour look-ahead included.
    tuning: summariseOutcomes(
      outcomes.filter((o) => o.index + HORIZON < heldOutFrom),
      timeOf,
    ),
    heldOut: summariseOutcomes(
      outcomes.filter((o) => o.index >= heldOutFrom),
      timeOf,
    ),
  };
}
