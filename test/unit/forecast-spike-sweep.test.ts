// The spike sweep's summary (lib/forecast/backtest-seeds.ts) on hand-made back-test parts whose
// figures are worked out by hand.
import { describe, expect, it } from 'vitest';
import type { BacktestReport } from '../../lib/forecast/backtest';
import type { SegmentReport } from '../../lib/forecast/backtest-metrics';
import { summariseSpikeSweep } from '../../lib/forecast/backtest-seeds';

function part(decisionPct: number, baselinePct: number, severe: number, mae: number): SegmentReport {
  const rule = (meanSavingPct: number, waitSevereShare: number) => ({
    meanSavingPct,
    shareOfOracle: meanSavingPct / 20,
    waitDecisions: 10,
    waitShare: 0.5,
    waitDearerShare: 2 * waitSevereShare,
    waitSevereShare,
    totalSpendSavingPct: meanSavingPct,
    totalSpendShareOfOracle: meanSavingPct / 40,
  });
  return {
    origins: 20,
    firstOrigin: null,
    lastOrigin: null,
    maeGwei: { model: 1, persistence: 1, sameHourYesterday: 1 },
    mapePct: { model: 1, persistence: 1, sameHourYesterday: 1 },
    maeRatio: { vsPersistence: mae, vsSameHourYesterday: mae },
    oracle: { meanSavingPct: 20, totalSpendSavingPct: 40 },
    decision: rule(decisionPct, severe),
    baseline: rule(baselinePct, 0.01),
    calibration: [],
    targets: {} as SegmentReport['targets'],
  };
}

const report = (p: SegmentReport): BacktestReport => ({
  hours: 0,
  firstHour: '',
  lastHour: '',
  warmupHours: 0,
  horizonHours: 24,
  skippedOrigins: 0,
  tuning: p,
  heldOut: p,
  whole: p,
});

describe('spike sweep summary', () => {
  it('gives each figure its mean, median, min and max over the seeds, and counts the seeds meeting each target', () => {
    // Oracle 20 %: the decision keeps 10/20, -10/20 and 12/20 (0.5, -0.5, 0.6); the baseline 4/20, 0, 16/20.
    const sweep = summariseSpikeSweep([
      report(part(10, 4, 0.01, 0.5)),
      report(part(-10, 0, 0.05, 0.7)),
      report(part(12, 16, 0.02, 0.6)),
    ]);
    for (const summary of [sweep.tuning, sweep.heldOut, sweep.whole]) {
      expect(summary.seeds).toBe(3);
      expect(summary.decisionShareOfOracle).toEqual({ mean: 0.2, median: 0.5, min: -0.5, max: 0.6 });
      expect(summary.baselineShareOfOracle).toEqual({ mean: 0.333, median: 0.2, min: 0, max: 0.8 });
      expect(summary.seedsAtLeast40PctOfOracle).toBe(2);
      expect(summary.seedsAboveBaseline).toBe(1);
      expect(summary.decisionWaitSevereShare).toEqual({ mean: 0.027, median: 0.02, min: 0.01, max: 0.05 });
      expect(summary.seedsAtMost2PctSevere).toBe(2);
      expect(summary.decisionWaitDearerShare.max).toBe(0.1);
      expect(summary.decisionTotalSpendShareOfOracle).toEqual({
        mean: 0.1,
        median: 0.25,
        min: -0.25,
        max: 0.3,
      });
      expect(summary.maeVsPersistence).toEqual({ mean: 0.6, median: 0.6, min: 0.5, max: 0.7 });
    }
  });

  it('refuses an empty sweep', () => {
    expect(() => summariseSpikeSweep([])).toThrow(/at least one seed/);
  });
});
