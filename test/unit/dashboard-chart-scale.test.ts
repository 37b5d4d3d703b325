// The dashboard chart's vertical scale (lib/web/public/assets/chart.js, whose chooseVerticalScale touches
// no DOM) at sub-gwei fees: labels that line up, and a logarithmic axis that reaches the band.
import { describe, expect, it } from 'vitest';

interface Scale {
  log: boolean;
  at(v: number): number;
  ticks: number[];
  label(v: number): string;
}
const { chooseVerticalScale } = (await import(
  new URL('../../lib/web/public/assets/chart.js', import.meta.url).href
)) as { chooseVerticalScale: (lines: number[], bandMax: number, bandMin?: number) => Scale };

const labelsOf = (scale: Scale) => scale.ticks.map((v) => scale.label(v));

describe('dashboard chart scale', () => {
  it.each([
    [
      [0.052, 0.074, 0.167],
      ['0.00', '0.05', '0.10', '0.15', '0.20'],
    ],
    [
      [0.031, 0.045, 0.06],
      ['0.00', '0.02', '0.04', '0.06', '0.08'],
    ],
    [
      [0.12, 0.15, 0.26],
      ['0.0', '0.1', '0.2', '0.3'],
    ],
    [
      [31.6, 35.2, 52.6],
      ['0', '20', '40', '60', '80'],
    ],
  ])("labels a linear axis over %j to the step's decimals: %j", (lines, labels) => {
    const scale = chooseVerticalScale(lines, 0);
    expect(scale.log).toBe(false);
    expect(labelsOf(scale)).toEqual(labels);
  });

  it('labels a logarithmic axis with round values, and reaches down to the band under the lines', () => {
    // A 0.6 gwei spike over 0.065 gwei fees, the forecast's 80 % band down to 0.031.
    const scale = chooseVerticalScale([0.065, 0.07, 0.6088], 0.43, 0.031);
    expect(scale.log).toBe(true);
    expect(labelsOf(scale)).toEqual(['0.02', '0.05', '0.1', '0.2', '0.5', '1']);
    expect(scale.at(0.031)).toBeGreaterThan(0);
  });

  it('follows the band down no further than 1.6x under the lowest line', () => {
    const scale = chooseVerticalScale([0.065, 0.07, 0.6088], 0.43, 0.001);
    expect(scale.ticks[0]).toBe(0.02);
    expect(scale.at(0.001)).toBe(0);
  });
});
