import { type OriginOutcome, summariseOutcomes } from './backtest-metrics';
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

/** One confidence band: what the forecasts said and how often the outcome fell within the tolerance. */
export interface CalibrationBand {
  minConfidence: number;
  maxConfidence: number;
  /** Mean stated confidence of the points in the band; null when the band is empty. */
  statedConfidence: number | null;
  /** Share (0 to 1) of those points whose outcome fell within the tolerance; null when empty. */
  observedShare: number | null;
  count: number;
}

/** The figures of GET /api/forecast-accuracy (SPEC extension 18), less the envelope, window and source. */
export interface AccuracyFigures {
  origins: number;
  mae: { model: number; persistence: number; sameHourYesterday: number } | null;
  maeByLeadHours: { hoursAhead: number; mae: number }[] | null;
  calibration: { tolerance: number; bands: CalibrationBand[] } | null;
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

/** A wait is severe when it ends above this multiple of the price of sending at once. */
export const SEVERE_WAIT_FACTOR = 2;
const BAND_WIDTH = 0.1;
const BANDS = 10;

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

const positive = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

/**
 * Scores forecasts against what happened (SPEC extension 18). A forecast counts when its current
 * reading and all 24 of its hours are known (a decision cannot be judged with an hour missing).
 * MAE is pooled over every hour that also has its same-hour-yesterday value, so the model and both
 * baselines are scored on the same hours; calibration bins every point by its stated confidence and
 * counts how often the outcome fell within `tolerance` (a factor) of the forecast. Savings are per
 * forecast, as the back-test reports them: following the decision, and a perfect-foresight oracle,
 * against sending at once. Nothing to score gives `origins: 0` and null figures.
 */
export function scoreForecasts(
  forecasts: readonly ScorableForecast[],
  tolerance: number = DEFAULT_FORECAST_PARAMS.confidenceTolerance,
): AccuracyFigures {
  const outcomes: OriginOutcome[] = [];
  const leadSums = Array.from({ length: SCORED_HOURS }, () => ({ error: 0, count: 0 }));
  const bands = Array.from({ length: BANDS }, () => ({ stated: 0, within: 0, count: 0 }));
  let severe = 0;
  const sorted = [...forecasts].sort((a, b) => a.originHour - b.originHour);
  for (const forecast of sorted) {
    const actual = forecast.outcome.actual;
    if (!positive(forecast.current) || actual.length !== SCORED_HOURS || !actual.every(positive)) continue;
    if (forecast.points.length !== SCORED_HOURS) continue;
    const chosen = chosenPrice(forecast, actual);
    if (chosen === undefined) continue;
    const leads: OriginOutcome['leads'] = [];
    forecast.points.forEach((point, i) => {
      const observed = actual[i] as number;
      const band = bands[Math.min(BANDS - 1, Math.max(0, Math.floor(point.confidence / BAND_WIDTH)))];
      if (band) {
        band.stated += point.confidence;
        band.count++;
        const ratio = observed / point.average;
        if (ratio <= tolerance && ratio >= 1 / tolerance) band.within++;
      }
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
    const waited = forecast.decision.recommendation === 'wait';
    if (waited && chosen > SEVERE_WAIT_FACTOR * forecast.current) severe++;
    outcomes.push({
      index: toHourIndex(forecast.originHour),
      leads,
      decisionSavingPct: (100 * (forecast.current - chosen)) / forecast.current,
      oracleSavingPct: (100 * (forecast.current - Math.min(forecast.current, ...actual))) / forecast.current,
      waited,
    });
  }
  if (outcomes.length === 0) {
    return {
      origins: 0,
      mae: null,
      maeByLeadHours: null,
      calibration: null,
      decision: null,
      scoredFrom: null,
      scoredTo: null,
    };
  }
  const summary = summariseOutcomes(outcomes, (index) => new Date(index * HOUR_MS).toISOString());
  const waits = summary.savings.waitDecisions;
  return {
    origins: outcomes.length,
    mae: pooledMae(outcomes),
    maeByLeadHours: leadSums.flatMap((lead, i) =>
      lead.count > 0 ? [{ hoursAhead: i + 1, mae: roundSignificant(lead.error / lead.count) }] : [],
    ),
    calibration: {
      tolerance,
      bands: bands.map((band, i) => ({
        minConfidence: round(i * BAND_WIDTH, 1),
        maxConfidence: round((i + 1) * BAND_WIDTH, 1),
        statedConfidence: band.count > 0 ? round(band.stated / band.count, 3) : null,
        observedShare: band.count > 0 ? round(band.within / band.count, 3) : null,
        count: band.count,
      })),
    },
    decision: {
      waits,
      realizedSavingPct: summary.savings.decisionMeanPct,
      oracleSavingPct: summary.savings.oracleMeanPct,
      // Shares of no waits are unknown, not zero.
      dearerWaitsPct: waits > 0 ? round(summary.savings.waitDearerShare * 100, 1) : null,
      severeWaitsPct: waits > 0 ? round((100 * severe) / waits, 1) : null,
    },
    scoredFrom: summary.firstOrigin,
    scoredTo: summary.lastOrigin,
  };
}

/** MAE (gwei) of the model and both baselines over every scored hour, or null when no hour had a baseline. */
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
