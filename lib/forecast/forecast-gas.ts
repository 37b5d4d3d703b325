/**
 * Gas forecast and send-or-wait decision: pure, explainable, pattern-based.
 *
 * Method (all in natural-log space, because gas moves multiplicatively):
 * 1. Shape. From the last 3 weeks of hourly average-tier history, each hour is measured against a
 *    smooth weekly level, and each of the 168 UTC hours of the week takes the median of those
 *    deviations, shrunk toward hour-of-day + day-of-week medians (`seasonal-profile.ts`). The
 *    learned shape is blended with a built-in shape derived from real mainnet data
 *    (`fallback-profile.ts`), which counts as 4 weeks of data (scaled down when single hours
 *    scatter less than 0.1 in log around the learned shape: clean history needs no prior). The
 *    daily rhythm (each hour of day's mean over the week) is blended apart: the learned one gets
 *    the share of its departure from the built-in rhythm that repeats between the older and the
 *    newer half of the window (`fit-model.ts`). Medians keep one-hour spikes out. Half of the
 *    last 10 days' departure from that shape at each UTC hour of day (a median per hour) is added,
 *    so a daily rhythm that has shifted lately shows before the multi-week shape learns it.
 * 2. Level. The median of the deseasonalised values of the last 24 hours (`log-model.ts` can
 *    weight recent hours more and let the level drift back to a weekly baseline; the parameter
 *    search found neither helps, so both are off).
 * 3. Anchor. The current reading's deviation d from level + shape persists with weight
 *    0.1 + 0.9 * 0.75^k at k hours ahead: mostly gone within half a day (most excursions are
 *    transient), a tenth kept all the way (some are level shifts). The part of d above a 3x jump
 *    fades by half an hour with no floor: spikes last hours (`log-model.ts`).
 *    forecast(k) = exp(level + shape(hour k) + weight(k) * d), the shape with its recent correction.
 *    Low and high ride on the average at a distance that fades from the current reading's toward
 *    their typical one (the median of the last 24 hours) with the same weight (`tiers.ts`).
 * 4. Confidence. The model is replayed from each hour of the last 14 days of history and its log
 *    errors kept per lead time (`error-spread.ts`). Point confidence is the share of them that
 *    landed within a factor 1.25 of the forecast, blended with a prior normal spread worth 48
 *    errors (0.35, or 0.5 on the fallback profile) (`wait-risk.ts`).
 * 5. Decision. Risk-aware, under those replayed errors plus a jump risk learned from the series
 *    (`decision.ts`, `wait-risk.ts`).
 * 6. Fallback. With less than 7 days of history (span under 168 hours or fewer than 126 hourly
 *    readings), the built-in shape stands in alone and `usingFallbackData` is true.
 * A predicted hour is a low-fee window when it is cheaper than the cheapest quarter of the hours of
 * a typical week at the current level.
 * Constants are in `params.ts`, chosen by `scripts/tune-forecast.ts` on the first two thirds of the
 * real hourly series in shared/data only; `scripts/backtest.ts` scores the whole span and the
 * held-out last third.
 */
import { cheapestIndex, decideSendOrWait } from './decision';
import { replayErrors } from './error-spread';
import { type FittedModel, fitModel } from './fit-model';
import { buildLogSeries, HOUR_MS, sliceBefore, toHourIndex } from './hourly-series';
import { anchorWeight, forecastLogPath, type LogModel, measureLevel, seasonalAt } from './log-model';
import { DEFAULT_FORECAST_PARAMS, type ForecastParams } from './params';
import { quantile, roundSignificant } from './stats';
import { measureTierSpread, spreadOf, tiersAround } from './tiers';
import {
  type ForecastHorizon,
  type ForecastInput,
  type GasForecast,
  HORIZON_HOURS,
  type Prediction,
} from './types';
import {
  jumpRiskOf,
  lastWeekValues,
  type RiskBasis,
  recordJumps,
  shareWithin,
  toLeadRisk,
} from './wait-risk';

const WEEK_MS = 7 * 24 * HOUR_MS;

/**
 * What a forecast takes from the stored history alone: the model fitted to the hours before the
 * current one and its replayed error spread per lead time. It is fixed within an hour and holds
 * most of a forecast's cost, so a caller serving many requests may prepare it once an hour and pass
 * it to `forecastGas` with each new live reading.
 */
export interface ForecastBasis {
  /** The hour (index since the epoch) and horizon it was prepared for. */
  nowHour: number;
  horizon: ForecastHorizon;
  fitted: FittedModel;
  /** The replayed errors per lead, the jump risk and last week's prices the decision weighs. */
  risk: RiskBasis;
}

/**
 * Prepares the history-only part of a forecast for the hour holding `now` (see ForecastBasis).
 * `historyStart`, when the caller knows it, is when the stored history began: under 7 days before
 * `now`, the built-in shape stands in, whatever the hours of the history suggest.
 */
export function prepareForecast(
  history: ForecastInput['history'],
  now: number,
  horizon: ForecastHorizon,
  params: ForecastParams = DEFAULT_FORECAST_PARAMS,
  historyStart?: number,
): ForecastBasis {
  const nowHour = toHourIndex(now);
  const series = sliceBefore(
    buildLogSeries(history.map((point) => ({ time: point.time, value: point.average }))),
    nowHour,
  );
  const tooShort = historyStart !== undefined && now - historyStart < WEEK_MS;
  const fitted = fitModel(series, nowHour, params, undefined, tooShort);
  const prior = fitted.usingFallback ? params.fallbackPriorSigma : params.priorSigma;
  const errors = replayErrors(fitted.model, nowHour, HORIZON_HOURS[horizon]);
  const risk: RiskBasis = {
    leads: errors.map(toLeadRisk),
    jump: jumpRiskOf(recordJumps(fitted.model, nowHour, params.jumpFactor), params),
    lastWeek: lastWeekValues(fitted.model, nowHour),
    priorSigma: prior,
    priorCount: params.priorCount,
  };
  return { nowHour, horizon, fitted, risk };
}

/** Returns the log of the current average, falling back to the latest stored hour when it is unusable. */
function anchorLogOf(input: ForecastInput, model: LogModel): number {
  if (input.current.average > 0) return Math.log(input.current.average);
  for (let i = model.series.values.length - 1; i >= 0; i--) {
    const v = model.series.values[i] ?? Number.NaN;
    if (!Number.isNaN(v)) return v;
  }
  throw new RangeError('forecastGas needs a positive current average or at least one stored hour');
}

/**
 * Forecasts hourly gas for the horizon (points start at the next whole hour) and decides whether
 * to send now or wait. Pure: the caller supplies history, the live reading and the clock, and may
 * pass the basis prepared from that same history earlier in the hour.
 */
export function forecastGas(
  input: ForecastInput,
  params: ForecastParams = DEFAULT_FORECAST_PARAMS,
  basis: ForecastBasis = prepareForecast(input.history, input.now, input.horizon, params),
): GasForecast {
  const leads = HORIZON_HOURS[input.horizon];
  const nowHour = toHourIndex(input.now);
  if (basis.nowHour !== nowHour || basis.horizon !== input.horizon) {
    throw new RangeError('forecast basis prepared for another hour or horizon');
  }
  const { fitted, risk } = basis;
  const { model, usingFallback } = fitted;
  const anchorLog = anchorLogOf(input, model);
  const path = forecastLogPath(model, nowHour, anchorLog, leads);

  const measured = measureLevel(model, nowHour);
  const level = Number.isNaN(measured) ? anchorLog - seasonalAt(model, nowHour) : measured;
  const lowFeeCeiling = Math.exp(level + quantile(Array.from(model.profile), params.lowFeeQuantile));
  const currentSpread = spreadOf(input.current);
  const typicalSpread = measureTierSpread(input.history, input.now, params.levelHours);
  // The served reading itself where it is usable, so comparisons with it agree with what clients see.
  const currentAverage = input.current.average > 0 ? input.current.average : Math.exp(anchorLog);

  const raw = path.map((logAverage, i) => {
    const k = i + 1;
    const weight = anchorWeight(params, k);
    return {
      hour: nowHour + k,
      tiers: tiersAround(Math.exp(logAverage), currentSpread, typicalSpread, weight),
      confidence: shareWithin(k, params.confidenceTolerance, risk),
    };
  });
  const predictions: Prediction[] = raw.map((point) => ({
    timestamp: new Date(point.hour * HOUR_MS).toISOString(),
    low: roundSignificant(point.tiers.low),
    average: roundSignificant(point.tiers.average),
    high: roundSignificant(point.tiers.high),
    isLowFeeWindow: point.tiers.average <= lowFeeCeiling,
    confidence: Math.round(point.confidence * 1000) / 1000,
  }));

  const candidates = raw.map((point, i) => ({ hour: point.hour, lead: i + 1, average: point.tiers.average }));
  const decision = decideSendOrWait(currentAverage, input.now, candidates, risk, params, {
    ethUsd: input.ethUsd,
  });
  // Cheaper as served (4 significant digits), as the decision judges it: never an hour a client sees
  // at or above now's price, nor null beside a served hour below it.
  const best = predictions[cheapestIndex(candidates)];
  const cheaper = best !== undefined && best.average < currentAverage;
  return {
    predictions,
    usingFallbackData: usingFallback,
    nextBestTime: cheaper
      ? {
          timestamp: best.timestamp,
          gasPrices: { low: best.low, average: best.average, high: best.high },
          confidence: best.confidence,
        }
      : null,
    decision,
  };
}
