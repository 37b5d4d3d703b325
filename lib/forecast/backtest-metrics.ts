/** What one scored forecast origin contributes to the back-test metrics. */
export interface OriginOutcome {
  /** Index of the origin hour in the aligned hourly series. */
  index: number;
  /** Absolute errors per lead (gwei) of the model and the two baselines, and the actual values. */
  leads: { actual: number; model: number; persistence: number; sameHourYesterday: number }[];
  /** Percent saved by following the decision versus sending at the origin (negative: dearer). */
  decisionSavingPct: number;
  /** Percent saved by sending at the cheapest actual hour of the horizon (origin included). */
  oracleSavingPct: number;
  waited: boolean;
}

/** Metrics of one span of origins. */
export interface SegmentReport {
  origins: number;
  firstOrigin: string | null;
  lastOrigin: string | null;
  maeGwei: { model: number; persistence: number; sameHourYesterday: number };
  mapePct: { model: number; persistence: number; sameHourYesterday: number };
  maeRatio: { vsPersistence: number; vsSameHourYesterday: number };
  savings: {
    decisionMeanPct: number;
    oracleMeanPct: number;
    shareOfOracle: number;
    waitDecisions: number;
    waitShare: number;
    waitDearerShare: number;
  };
  targets: {
    maeAtMost065xPersistence: boolean;
    maeAtMost075xSameHourYesterday: boolean;
    savingAtLeast40PctOfOracle: boolean;
    atMost15PctOfWaitsDearer: boolean;
    allMet: boolean;
  };
}

const round = (value: number, digits = 4) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

/**
 * Summarises scored origins: MAE and MAPE pooled over every origin and every lead, the ratios the
 * targets are stated in, realized savings against the oracle, and whether each target holds.
 */
export function summariseOutcomes(
  outcomes: readonly OriginOutcome[],
  timeOfIndex: (index: number) => string,
): SegmentReport {
  const abs = { model: 0, persistence: 0, sameHourYesterday: 0 };
  const pct = { model: 0, persistence: 0, sameHourYesterday: 0 };
  let leadCount = 0;
  let decisionSum = 0;
  let oracleSum = 0;
  let waits = 0;
  let dearer = 0;
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
    decisionSum += outcome.decisionSavingPct;
    oracleSum += outcome.oracleSavingPct;
    if (outcome.waited) {
      waits++;
      if (outcome.decisionSavingPct < 0) dearer++;
    }
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
  const shareOfOracle = decisionSum / oracleSum;
  const waitDearerShare = waits > 0 ? dearer / waits : 0;
  const targets = {
    maeAtMost065xPersistence: ratio.vsPersistence <= 0.65,
    maeAtMost075xSameHourYesterday: ratio.vsSameHourYesterday <= 0.75,
    savingAtLeast40PctOfOracle: shareOfOracle >= 0.4,
    atMost15PctOfWaitsDearer: waitDearerShare <= 0.15,
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
    savings: {
      decisionMeanPct: round(decisionSum / n, 2),
      oracleMeanPct: round(oracleSum / n, 2),
      shareOfOracle: round(shareOfOracle, 3),
      waitDecisions: waits,
      waitShare: round(waits / n, 3),
      waitDearerShare: round(waitDearerShare, 3),
    },
    targets: { ...targets, allMet: Object.values(targets).every(Boolean) },
  };
}
