import { describe, expect, it } from 'vitest';
import { type OriginRecord, runBacktest } from '../../lib/forecast/backtest';
import { type OriginOutcome, summariseOutcomes } from '../../lib/forecast/backtest-metrics';
import { decideByHourOfDay } from '../../lib/forecast/hour-of-day-baseline';
import { injectSpikes } from '../../lib/forecast/inject-spikes';

const HOUR = 3_600_000;
const START = Date.parse('2024-01-01T00:35:00Z');

/** Ten days of a daily cycle (cheap at night) on a minute grid that is not the whole hour. */
const rows = Array.from({ length: 240 }, (_, h) => ({
  time: START + h * HOUR,
  value: 20 * Math.exp(0.6 * Math.cos((2 * Math.PI * ((h % 24) - 15)) / 24)) * (1 + 0.05 * Math.sin(h * 3.7)),
}));

describe('runBacktest', () => {
  it('aligns rows to their hour, warms up 7 days and scores each origin with a full day ahead', () => {
    const records: OriginRecord[] = [];
    const report = runBacktest(rows, { onOrigin: (r) => records.push(r) });
    expect(report.firstHour).toBe('2024-01-01T00:00:00.000Z');
    expect(report.whole.origins).toBe(240 - 168 - 24);
    expect(records).toHaveLength(report.whole.origins);
    expect(records[0]?.origin).toBe('2024-01-08T00:00:00.000Z');
    expect(records[0]?.predictions).toHaveLength(24);
    expect(records[0]?.predictions[0]?.timestamp).toBe('2024-01-08T01:00:00.000Z');
    expect(report.heldOut.origins + report.tuning.origins).toBeLessThanOrEqual(report.whole.origins);
  });

  it('beats persistence on a regular daily cycle and saves by waiting for the night', () => {
    const { whole } = runBacktest(rows);
    expect(whole.maeRatio.vsPersistence).toBeLessThan(0.5);
    expect(whole.decision.meanSavingPct).toBeGreaterThan(0);
    expect(whole.decision.meanSavingPct).toBeLessThanOrEqual(whole.oracle.meanSavingPct);
    expect(whole.decision.waitDecisions).toBeGreaterThan(0);
    expect(whole.baseline.waitDecisions).toBeGreaterThan(0);
  });

  it('skips origins with a gap in the day ahead', () => {
    const gappy = rows.filter((_, h) => h !== 200);
    const report = runBacktest(gappy);
    expect(report.skippedOrigins).toBe(25);
    expect(report.whole.origins).toBe(240 - 168 - 24 - 25);
  });
});

/** One origin with a price now, the cheapest of its day, and what each rule paid. */
function outcome(
  index: number,
  current: number,
  cheapest: number,
  model: number,
  baseline: number,
): OriginOutcome {
  return {
    index,
    leads: [{ actual: 1, model: 0.5, persistence: 1, sameHourYesterday: 1 }],
    current,
    cheapest,
    model: { paid: model, waited: model !== current },
    baseline: { paid: baseline, waited: baseline !== current },
    calibration: [],
  };
}

describe('summariseOutcomes', () => {
  it('scores the decision, the baseline, severe waits and total spend as worked out by hand', () => {
    // Four origins. Model: waits at 0 (10 -> 5, saves 50 %), sends at 1, waits at 2 (4 -> 5, dearer),
    // waits at 3 (2 -> 5, above twice: severe). Baseline: waits at 0 (10 -> 8), sends at the others.
    const report = summariseOutcomes(
      [outcome(0, 10, 5, 5, 8), outcome(1, 20, 10, 20, 20), outcome(2, 4, 2, 5, 4), outcome(3, 2, 1, 5, 2)],
      (i) => `hour ${i}`,
    );
    // Per-origin savings: model (50 + 0 - 25 - 150) / 4 = -31.25 %; oracle (50 + 50 + 50 + 50) / 4 = 50 %.
    expect(report.decision.meanSavingPct).toBe(-31.25);
    expect(report.oracle.meanSavingPct).toBe(50);
    expect(report.decision.shareOfOracle).toBe(-0.625);
    expect(report.decision.waitDecisions).toBe(3);
    expect(report.decision.waitDearerShare).toBe(0.667);
    expect(report.decision.waitSevereShare).toBe(0.333);
    // Total spend: sending at once 36, model paid 35 (2.78 % saved), oracle 18 (50 %).
    expect(report.decision.totalSpendSavingPct).toBe(2.78);
    expect(report.oracle.totalSpendSavingPct).toBe(50);
    expect(report.decision.totalSpendShareOfOracle).toBe(0.056);
    // Baseline: (20 + 0 + 0 + 0) / 4 = 5 % per origin, paid 34 of 36 in total.
    expect(report.baseline.meanSavingPct).toBe(5);
    expect(report.baseline.waitDecisions).toBe(1);
    expect(report.baseline.totalSpendSavingPct).toBe(5.56);
    expect(report.targets.savingAboveBaseline).toBe(false);
    expect(report.targets.atMost2PctOfWaitsSevere).toBe(false);
  });
});

describe('decideByHourOfDay', () => {
  it('waits for the hour of day whose 7-day median is at least 10 % below now', () => {
    // Hour of day 3 costs 5, every other hour 10; the series starts at hour of day 0.
    const prices: number[] = Array.from({ length: 24 * 8 }, (_, i) => (i % 24 === 3 ? 5 : 10));
    expect(decideByHourOfDay(prices, 24 * 7 + 10, 0)).toEqual({ lead: 17 });
    // At 5.4 now, 5 is only 7.4 % below: send now.
    const cheapNow = [...prices];
    cheapNow[24 * 7 + 10] = 5.4;
    expect(decideByHourOfDay(cheapNow, 24 * 7 + 10, 0)).toEqual({ lead: 0 });
  });
});

describe('injectSpikes', () => {
  it('multiplies whole-hour stretches by 20x-100x, the same for the same seed', () => {
    const flat = Array.from({ length: 500 }, (_, h) => ({ time: START + h * HOUR, value: 1 }));
    const a = injectSpikes(flat, { count: 3, seed: 7 });
    expect(a).toEqual(injectSpikes(flat, { count: 3, seed: 7 }));
    expect(a.spikes).toHaveLength(3);
    for (const spike of a.spikes) {
      expect(spike.factor).toBeGreaterThanOrEqual(20);
      expect(spike.factor).toBeLessThanOrEqual(100);
      expect(spike.hours).toBeGreaterThanOrEqual(1);
      expect(spike.hours).toBeLessThanOrEqual(6);
    }
    const spiked = a.rows.filter((r) => r.value > 1).length;
    expect(spiked).toBeGreaterThan(0);
    expect(spiked).toBeLessThanOrEqual(18);
  });
});
