import type { BacktestReport } from './backtest';
import type { SegmentReport } from './backtest-metrics';
import { median } from './stats';

/** The spread of one figure over the seeds of a spike sweep. */
export interface Spread {
  mean: number;
  median: number;
  min: number;
  max: number;
}

/** One part (tuning, held out, whole) of a spike sweep: each figure's spread over the seeds. */
export interface SweepPart {
  seeds: number;
  decisionShareOfOracle: Spread;
  baselineShareOfOracle: Spread;
  /** Seeds on which the decision kept at least 40 % of the oracle's saving. */
  seedsAtLeast40PctOfOracle: number;
  /** Seeds on which the decision saved more than the baseline. */
  seedsAboveBaseline: number;
  decisionWaitSevereShare: Spread;
  baselineWaitSevereShare: Spread;
  /** Seeds on which at most 2 % of the decision's waits ended above twice the send-now price. */
  seedsAtMost2PctSevere: number;
  decisionWaitDearerShare: Spread;
  decisionTotalSpendShareOfOracle: Spread;
  baselineTotalSpendShareOfOracle: Spread;
  maeVsPersistence: Spread;
}

function spread(values: readonly number[]): Spread {
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    mean: round(values.reduce((sum, v) => sum + v, 0) / values.length),
    median: round(median(values)),
    min: round(Math.min(...values)),
    max: round(Math.max(...values)),
  };
}

function summarisePart(segments: readonly SegmentReport[]): SweepPart {
  return {
    seeds: segments.length,
    decisionShareOfOracle: spread(segments.map((s) => s.decision.shareOfOracle)),
    baselineShareOfOracle: spread(segments.map((s) => s.baseline.shareOfOracle)),
    seedsAtLeast40PctOfOracle: segments.filter((s) => s.decision.shareOfOracle >= 0.4).length,
    seedsAboveBaseline: segments.filter((s) => s.decision.meanSavingPct > s.baseline.meanSavingPct).length,
    decisionWaitSevereShare: spread(segments.map((s) => s.decision.waitSevereShare)),
    baselineWaitSevereShare: spread(segments.map((s) => s.baseline.waitSevereShare)),
    seedsAtMost2PctSevere: segments.filter((s) => s.decision.waitSevereShare <= 0.02).length,
    decisionWaitDearerShare: spread(segments.map((s) => s.decision.waitDearerShare)),
    decisionTotalSpendShareOfOracle: spread(segments.map((s) => s.decision.totalSpendShareOfOracle)),
    baselineTotalSpendShareOfOracle: spread(segments.map((s) => s.baseline.totalSpendShareOfOracle)),
    maeVsPersistence: spread(segments.map((s) => s.maeRatio.vsPersistence)),
  };
}

/**
 * Summarises back-tests of one series with spikes injected under different seeds: one seed's figures
 * hang on where its few spikes fell (a wait that lands in a 50x spike costs as much as a hundred
 * good waits save), so the stress test reports each figure's spread over many placements, per part.
 */
export function summariseSpikeSweep(
  reports: readonly BacktestReport[],
): Record<'tuning' | 'heldOut' | 'whole', SweepPart> {
  if (reports.length === 0) throw new Error('a spike sweep needs at least one seed');
  return {
    tuning: summarisePart(reports.map((r) => r.tuning)),
    heldOut: summarisePart(reports.map((r) => r.heldOut)),
    whole: summarisePart(reports.map((r) => r.whole)),
  };
}
