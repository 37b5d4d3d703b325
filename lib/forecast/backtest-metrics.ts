import { type CalibrationBand, summariseCalibration } from './calibration';

/** A decision's outcome at one origin: the price at the origin, the price paid, and whether it waited. */
export interface DecisionOutcome {
  paid: number;
  waited: boolean;
}

/** What one scored forecast origin contributes to the back-test metrics. */
export interface OriginOutcome {
  /** Index of the origin hour in the aligned hourly series. */
  index: number;
  /** Absolute errors per lead (gwei) of the model and the two baselines, and the actual values. */
  leads: { actual: number; model: number; persistence: number; sameHourYesterday: number }[];
  /** Price at the origin (what sending at once costs) and the cheapest actual of the horizon. */
  current: number;
  cheapest: number;
  /** Following the model's decision, and the plain hour-of-day baseline's. */
  model: DecisionOutcome;
  baseline: DecisionOutcome;
  /** Each forecast point's stated confidence and whether the outcome fell within the tolerance. */
  calibration: { confidence: number; hit: boolean }[];
}

/** How following one decision rule fared over a span of origins. */
export interface DecisionReport {
  /** Mean over origins of the percent saved against sending at once (negative: dearer). */
  meanSavingPct: number;
  /** That mean as a share of the oracle's mean. */
  shareOfOracle: number;
  waitDecisions: number;
  waitShare: number;
  /** Share of waits that ended dearer than sending at once, and above twice that price. */
  waitDearerShare: number;
  waitSevereShare: number;
  /** One equal-gas transaction per origin: percent of the total spend saved, and its share of the oracle's. */
  totalSpendSavingPct: number;
  totalSpendShareOfOracle: number;
}

/** Metrics of one span of origins. */
export interface SegmentReport {
  origins: number;
  firstOrigin: string | null;
  lastOrigin: string | null;
  maeGwei: { model: number; persistence: number; sameHourYesterday: number };
  mapePct: { model: number; persistence: number; sameHourYesterday: number };
  maeRatio: { vsPersistence: number; vsSameHourYesterday: number };
  oracle: { meanSavingPct: number; totalSpendSavingPct: number };
  decision: DecisionReport;
  baseline: DecisionReport;
  calibration: CalibrationBand[];
  targets: {
    maeAtMost065xPersistence: boolean;
    maeAtMost075xSameHourYesterday: boolean;
    savingAtLeast40PctOfOracle: boolean;
    savingAboveBaseline: boolean;
    atMost15PctOfWaitsDearer: boolean;
    atMost2PctOfWaitsSevere: boolean;
    calibrationWithin01PerBand: boolean;
    allMet: boolean;
  };
}

/** Bands with fewer forecast points than this are reported but too thin to judge calibration by. */
export const MIN_BAND_POINTS = 30;

const round = (value: number, digits = 4) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

/** Scores one decision rule over the origins against sending at once and against the oracle. */
function scoreDecisions(
  outcomes: readonly OriginOutcome[],
  pick: (o: OriginOutcome) => DecisionOutcome,
  oracleMeanPct: number,
  oracleTotalPct: number,
): { report: DecisionReport; raw: { meanSavingPct: number; share: number; dearer: number; severe: number } } {
  let savingSum = 0;
  let currentSum = 0;
  let paidSum = 0;
  let waits = 0;
  let dearer = 0;
  let severe = 0;
  for (const o of outcomes) {
    const { paid, waited } = pick(o);
    savingSum += (100 * (o.current - paid)) / o.current;
    currentSum += o.current;
    paidSum += paid;
    if (!waited) continue;
    waits++;
    if (paid > o.current) dearer++;
    if (paid > 2 * o.current) severe++;
  }
  const n = outcomes.length;
  const meanSavingPct = savingSum / n;
  const totalSpendSavingPct = 100 * (1 - paidSum / currentSum);
  const raw = {
    meanSavingPct,
    share: meanSavingPct / oracleMeanPct,
    dearer: waits > 0 ? dearer / waits : 0,
    severe: waits > 0 ? severe / waits : 0,
  };
  const report = {
    meanSavingPct: round(meanSavingPct, 2),
    shareOfOracle: round(raw.share, 3),
    waitDecisions: waits,
    waitShare: round(waits / n, 3),
    waitDearerShare: round(raw.dearer, 3),
    waitSevereShare: round(raw.severe, 3),
    totalSpendSavingPct: round(totalSpendSavingPct, 2),
    totalSpendShareOfOracle: round(totalSpendSavingPct / oracleTotalPct, 3),
  };
  return { report, raw };
}

/**
 * Summarises scored origins: MAE and MAPE pooled over every origin and every lead, the ratios the
 * targets are stated in, the model's decision and the hour-of-day baseline's against the oracle
 * (per origin and on total spend), the tail of waits, calibration per confidence band, and
 * whether each target holds.
 */
export function summariseOutcomes(
  outcomes: readonly OriginOutcome[],
  timeOfIndex: (index: number) => string,
): SegmentReport {
  const abs = { model: 0, persistence: 0, sameHourYesterday: 0 };
  const pct = { model: 0, persistence: 0, sameHourYesterday: 0 };
  let leadCount = 0;
  let oracleSum = 0;
  let currentSum = 0;
  let cheapestSum = 0;
  for (const outcome of outcomes) {
    for (const lead of outcome.leads) {
      abs.model += lead.model;
      abs.persistence += lead.persistence;
      abs.sameHourYesterday += lead.sameHourYesterday;
      pct.model += lead.model / lead.actual;
      pct.persistence += lead.persistence / lead.actual;
      pct.sameHourYesterday += lead.sameHourYesterday / lead.actual;
      leadCount++;
    }
    oracleSum += (100 * (outcome.current - outcome.cheapest)) / outcome.current;
    currentSum += outcome.current;
    cheapestSum += outcome.cheapest;
  }
  const n = outcomes.length;
  const mae = {
    model: abs.model / leadCount,
    persistence: abs.persistence / leadCount,
    sameHourYesterday: abs.sameHourYesterday / leadCount,
  };
  const ratio = {
    vsPersistence: mae.model / mae.persistence,
    vsSameHourYesterday: mae.model / mae.sameHourYesterday,
  };
  const oracleMeanPct = oracleSum / n;
  const oracleTotalPct = 100 * (1 - cheapestSum / currentSum);
  const model = scoreDecisions(outcomes, (o) => o.model, oracleMeanPct, oracleTotalPct);
  const baseline = scoreDecisions(outcomes, (o) => o.baseline, oracleMeanPct, oracleTotalPct);
  const calibration = summariseCalibration(outcomes.flatMap((o) => o.calibration));
  const targets = {
    maeAtMost065xPersistence: ratio.vsPersistence <= 0.65,
    maeAtMost075xSameHourYesterday: ratio.vsSameHourYesterday <= 0.75,
    // Judged on the unrounded figures: 0.3996 of the oracle is not 40 %.
    savingAtLeast40PctOfOracle: model.raw.share >= 0.4,
    savingAboveBaseline: model.raw.meanSavingPct > baseline.raw.meanSavingPct,
    atMost15PctOfWaitsDearer: model.raw.dearer <= 0.15,
    atMost2PctOfWaitsSevere: model.raw.severe <= 0.02,
    calibrationWithin01PerBand: calibration.every(
      (band) =>
        band.count < MIN_BAND_POINTS || Math.abs((band.observed ?? 0) - (band.statedMean ?? 0)) <= 0.1,
    ),
  };
  const first = outcomes[0];
  const last = outcomes[n - 1];
  return {
    origins: n,
    firstOrigin: first ? timeOfIndex(first.index) : null,
    lastOrigin: last ? timeOfIndex(last.index) : null,
    maeGwei: {
      model: round(mae.model),
      persistence: round(mae.persistence),
      sameHourYesterday: round(mae.sameHourYesterday),
    },
    mapePct: {
      model: round((100 * pct.model) / leadCount, 2),
      persistence: round((100 * pct.persistence) / leadCount, 2),
      sameHourYesterday: round((100 * pct.sameHourYesterday) / leadCount, 2),
    },
    maeRatio: {
      vsPersistence: round(ratio.vsPersistence, 3),
      vsSameHourYesterday: round(ratio.vsSameHourYesterday, 3),
    },
    oracle: { meanSavingPct: round(oracleMeanPct, 2), totalSpendSavingPct: round(oracleTotalPct, 2) },
    decision: model.report,
    baseline: baseline.report,
    calibration,
    targets: { ...targets, allMet: Object.values(targets).every(Boolean) },
  };
}
