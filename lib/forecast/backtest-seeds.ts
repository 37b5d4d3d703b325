import type { BacktestReport } from './backtest';
import type { SegmentReport } from './backtest-metrics';

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
  /** Seeds on which the decision kept at least 40 % of the oracle's saving, and saved more than the baseline. */
  seedsAtLeast40PctOfOracle: number;
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

const PARTS = ['tuning', 'heldOut', 'whole'] as const;

function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mid =
    n % 2 ? (sorted[(n - 1) / 2] as number) : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    mean: round(sorted.reduce((sum, v) => sum + v, 0) / n),
    median: round(mid),
    min: round(sorted[0] as number),
    max: round(sorted[n - 1] as number),
  };
}

function summarisePart(segments: readonly SegmentReport[]): SweepPart {
  const share = (s: SegmentReport, rule: 'decision' | 'baseline') =>
    s[rule].meanSavingPct / s.oracle.meanSavingPct;
  return {
    seeds: segments.length,
    decisionShareOfOracle: spread(segments.map((s) => share(s, 'decision'))),
    baselineShareOfOracle: spread(segments.map((s) => share(s, 'baseline'))),
    seedsAtLeast40PctOfOracle: segments.filter((s) => share(s, 'decision') >= 0.4).length,
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
): Record<(typeof PARTS)[number], SweepPart> {
  if (reports.length === 0) throw new Error('a spike sweep needs at least one seed');
  return {
    tuning: summarisePart(reports.map((r) => r.tuning)),
    heldOut: summarisePart(reports.map((r) => r.heldOut)),
    whole: summarisePart(reports.map((r) => r.whole)),
  };
}
