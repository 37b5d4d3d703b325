import { describe, expect, it } from 'vitest';
import { type OriginRecord, runBacktest } from '../../lib/forecast/backtest';

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
    expect(whole.savings.decisionMeanPct).toBeGreaterThan(0);
    expect(whole.savings.decisionMeanPct).toBeLessThanOrEqual(whole.savings.oracleMeanPct);
    expect(whole.savings.waitDecisions).toBeGreaterThan(0);
  });

  it('skips origins with a gap in the day ahead', () => {
    const gappy = rows.filter((_, h) => h !== 200);
    const report = runBacktest(gappy);
    expect(report.skippedOrigins).toBe(25);
    expect(report.whole.origins).toBe(240 - 168 - 24 - 25);
  });
});
