import { type OriginOutcome, summariseOutcomes } from './backtest-metrics';
import { type CalibrationBand, withinTolerance } from './calibration';
import { HOUR_MS, toHourIndex } from './hourly-series';
import { DEFAULT_FORECAST_PARAMS } from './params';
import { roundSignificant } from './stats';

/** Hours a scored forecast covers: the 24-hour series of gas-predictions and the dashboard. */
export const SCORED_HOURS = 24;

/**
 * What happened after a forecast: the hourly means of the stored average tier (gwei) at each of its
 * hours, and at the same hours one day earlier (the same-hour-yesterday baseline); null where no
 * snapshot was stored in that hour.
 */
export interface ForecastOutcome {
  actual: (number | null)[];
  sameHourYesterday: (number | null)[];
}

/** A forecast as it was served (live and stored, or replayed from history) with what happened after. */
export interface ScorableForecast {
  /** Start (epoch ms) of the hour the forecast was made in; point k is the hour k hours later. */
  originHour: number;
  /** The average-tier reading (gwei) it started from: sending at once, and the persistence forecast. */
  current: number;
  points: readonly { average: number; confidence: number }[];
  decision: { recommendation: 'wait' | 'send_now'; nextBestAt: string };
  outcome: ForecastOutcome;
}

/** The figures of GET /api/forecast-accuracy (SPEC extension 18), less the envelope, window and source. */
export interface AccuracyFigures {
  origins: number;
  mae: { model: number; persistence: number; sameHourYesterday: number } | null;
  maeByLeadHours: { hoursAhead: number; mae: number }[] | null;
  /** The back-test's confidence bands: stated confidence against the share of outcomes within tolerance. */
  calibration: CalibrationBand[] | null;
  decision: {
    waits: number;
    realizedSavingPct: number;
    oracleSavingPct: number;
    dearerWaitsPct: number | null;
    severeWaitsPct: number | null;
  } | null;
  scoredFrom: string | null;
  scoredTo: string | null;
}

/**
 * Measures what happened after a forecast made in `originHour` (epoch ms) from an hourly lookup of
 * the stored average tier, the same hourly means the forecaster learns from.
 */
export function measureOutcome(
  originHour: number,
  averageAt: (hourStartMs: number) => number | undefined,
): ForecastOutcome {
  const actual: (number | null)[] = [];
  const sameHourYesterday: (number | null)[] = [];
  for (let k = 1; k <= SCORED_HOURS; k++) {
    actual.push(averageAt(originHour + k * HOUR_MS) ?? null);
    sameHourYesterday.push(averageAt(originHour + (k - 24) * HOUR_MS) ?? null);
  }
  return { actual, sameHourYesterday };
}

/** The actual price met by following the decision, or undefined when the chosen hour is outside the forecast. */
function chosenPrice(forecast: ScorableForecast, actual: readonly number[]): number | undefined {
  if (forecast.decision.recommendation === 'send_now') return forecast.current;
  const k = toHourIndex(Date.parse(forecast.decision.nextBestAt)) - toHourIndex(forecast.originHour);
  return k >= 1 && k <= actual.length ? actual[k - 1] : undefined;
}

/** The figures when no forecast can be scored: none are made up (SPEC extension 18). */
export const NOTHING_SCORED: Readonly<AccuracyFigures> = {
  origins: 0,
  mae: null,
  maeByLeadHours: null,
  calibration: null,
  decision: null,
  scoredFrom: null,
  scoredTo: null,
};

const positive = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * Scores forecasts against what happened (SPEC extension 18), with the back-test's own summary so
 * that live and replayed figures mean what the back-test's do. A forecast counts when its current
 * reading and all 24 of its hours are known (a decision cannot be judged with an hour missing).
 * MAE is pooled over every hour that also has its same-hour-yesterday value, so the model and both
 * baselines are scored on the same hours; calibration bins every point by its stated confidence and
 * counts how often the outcome fell within `tolerance` (a factor) of the forecast. Savings are per
 * forecast: following the decision, and a perfect-foresight oracle, against sending at once.
 * Nothing to score gives `origins: 0` and null figures.
 */
export function scoreForecasts(
  forecasts: readonly ScorableForecast[],
  tolerance: number = DEFAULT_FORECAST_PARAMS.confidenceTolerance,
): AccuracyFigures {
  const outcomes: OriginOutcome[] = [];
  const leadSums = Array.from({ length: SCORED_HOURS }, () => ({ error: 0, count: 0 }));
  const sorted = [...forecasts].sort((a, b) => a.originHour - b.originHour);
  for (const forecast of sorted) {
    const actual = forecast.outcome.actual;
    if (!positive(forecast.current) || actual.length !== SCORED_HOURS || !actual.every(positive)) continue;
    if (forecast.points.length !== SCORED_HOURS) continue;
    const paid = chosenPrice(forecast, actual);
    if (paid === undefined) continue;
    const leads: OriginOutcome['leads'] = [];
    forecast.points.forEach((point, i) => {
      const observed = actual[i] as number;
      const yesterday = forecast.outcome.sameHourYesterday[i];
      if (!positive(yesterday)) return;
      const model = Math.abs(point.average - observed);
      leads.push({
        actual: observed,
        model,
        persistence: Math.abs(forecast.current - observed),
        sameHourYesterday: Math.abs(yesterday - observed),
      });
      const lead = leadSums[i];
      if (lead) {
        lead.error += model;
        lead.count++;
      }
    });
    const sendNow = { paid: forecast.current, waited: false };
    outcomes.push({
      index: toHourIndex(forecast.originHour),
      leads,
      current: forecast.current,
      cheapest: Math.min(forecast.current, ...actual),
      model: { paid, waited: forecast.decision.recommendation === 'wait' },
      // The back-test's hour-of-day baseline needs the series before each origin; it is not reported here.
      baseline: sendNow,
      calibration: forecast.points.map((point, i) => ({
        confidence: point.confidence,
        hit: withinTolerance(point.average, actual[i] as number, tolerance),
      })),
    });
  }
  if (outcomes.length === 0) return NOTHING_SCORED;
  const summary = summariseOutcomes(outcomes, (index) => new Date(index * HOUR_MS).toISOString());
  const { decision } = summary;
  const waits = decision.waitDecisions;
  return {
    origins: outcomes.length,
    mae: pooledMae(outcomes),
    maeByLeadHours: leadSums.flatMap((lead, i) =>
      lead.count > 0 ? [{ hoursAhead: i + 1, mae: roundSignificant(lead.error / lead.count) }] : [],
    ),
    calibration: summary.calibration,
    decision: {
      waits,
      realizedSavingPct: decision.meanSavingPct,
      oracleSavingPct: summary.oracle.meanSavingPct,
      // Shares of no waits are unknown, not zero.
      dearerWaitsPct: waits > 0 ? round(decision.waitDearerShare * 100, 1) : null,
      severeWaitsPct: waits > 0 ? round(decision.waitSevereShare * 100, 1) : null,
    },
    scoredFrom: summary.firstOrigin,
    scoredTo: summary.lastOrigin,
  };
}

/**
 * MAE (gwei) of the model and both baselines over every scored hour, or null when no hour had a
 * baseline. Kept to 4 significant digits (the back-test's summary keeps 4 decimals, too coarse for
 * today's sub-gwei fees).
 */
function pooledMae(outcomes: readonly OriginOutcome[]): AccuracyFigures['mae'] {
  const sum = { model: 0, persistence: 0, sameHourYesterday: 0 };
  let count = 0;
  for (const lead of outcomes.flatMap((outcome) => outcome.leads)) {
    sum.model += lead.model;
    sum.persistence += lead.persistence;
    sum.sameHourYesterday += lead.sameHourYesterday;
    count++;
  }
  if (count === 0) return null;
  return {
    model: roundSignificant(sum.model / count),
    persistence: roundSignificant(sum.persistence / count),
    sameHourYesterday: roundSignificant(sum.sameHourYesterday / count),
  };
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));
