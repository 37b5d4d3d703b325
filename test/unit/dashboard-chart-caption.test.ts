// The dashboard chart's caption (lib/web/public/assets/chart.js, a browser module with no DOM use in
// describeChart) names the same cheapest hour as the decision box, which reads `nextBestWindow`.
import { describe, expect, it } from 'vitest';

type Point = { timestamp: string; average: number; isLowFeeWindow: boolean };
type DescribeChart = (chart: {
  history: { gasPrice: number }[];
  predictions: Point[];
  current: number | null;
  cheapestAt?: string | null;
}) => string;

const { describeChart } = (await import(
  new URL('../../lib/web/public/assets/chart.js', import.meta.url).href
)) as {
  describeChart: DescribeChart;
};

const at = (hour: number) => new Date(Date.UTC(2026, 0, 14, hour)).toISOString();
const clockOf = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
/** The hour the caption calls cheapest, as its clock time (the weekday before it dropped). */
const cheapestIn = (text: string) => /cheapest around (?:\S+ )?(\d\d:\d\d(?: [AP]M)?) \(/.exec(text)?.[1];

// Two hours tie at the served 4 significant digits; the API's raw forecast made the later one cheaper.
const predictions: Point[] = [
  { timestamp: at(10), average: 0.05, isLowFeeWindow: false },
  { timestamp: at(11), average: 0.03125, isLowFeeWindow: true },
  { timestamp: at(12), average: 0.04, isLowFeeWindow: false },
  { timestamp: at(13), average: 0.03125, isLowFeeWindow: true },
];

describe('dashboard chart caption', () => {
  it('names the nextBestWindow hour on a tie in served prices', () => {
    const text = describeChart({ history: [], predictions, current: 0.06, cheapestAt: at(13) });
    expect(cheapestIn(text)).toBe(clockOf(at(13)));
  });

  it('names the first cheapest point when there is no nextBestWindow', () => {
    const text = describeChart({ history: [], predictions, current: 0.02, cheapestAt: null });
    expect(cheapestIn(text)).toBe(clockOf(at(11)));
  });
});
