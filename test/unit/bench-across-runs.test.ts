// The throughput benchmark's summary over fresh starts (`--runs N`, bench/across-runs.ts).
import { describe, expect, it } from 'vitest';
import { acrossRuns } from '../../bench/across-runs';

const run = (entries: [string, number][]) => new Map(entries);

describe('the throughput benchmark summary over runs', () => {
  it('takes each row’s median over the runs and counts the rows at the target per run and by median', () => {
    // The figures of pinned runs J, K and L (docs/benchmark-history.md), three rows of them.
    const summary = acrossRuns(
      [
        run([
          ['/api/gas', 0.77],
          ['/api/eth-price', 0.72],
          ['/openapi.json (304)', 1.12],
        ]),
        run([
          ['/api/gas', 1.0],
          ['/api/eth-price', 1.07],
          ['/openapi.json (304)', 0.78],
        ]),
        run([
          ['/api/gas', 0.93],
          ['/api/eth-price', 0.78],
          ['/openapi.json (304)', 0.73],
        ]),
      ],
      0.8,
    );
    expect(summary.rows).toEqual([
      { path: '/api/gas', perRun: [0.77, 1.0, 0.93], median: 0.93 },
      { path: '/api/eth-price', perRun: [0.72, 1.07, 0.78], median: 0.78 },
      { path: '/openapi.json (304)', perRun: [1.12, 0.78, 0.73], median: 0.78 },
    ]);
    expect(summary.atTargetPerRun).toEqual([1, 2, 1]);
    expect(summary.atTargetByMedian).toBe(1);
  });

  it('counts a row exactly at the target as reaching it, and interpolates an even number of runs', () => {
    const summary = acrossRuns([run([['/a', 0.7]]), run([['/a', 0.9]])], 0.8);
    expect(summary.rows[0]?.median).toBeCloseTo(0.8, 12);
    expect(acrossRuns([run([['/a', 0.8]])], 0.8).atTargetByMedian).toBe(1);
  });

  it('counts a ratio that rounds to 0.80 but lies below it as a miss', () => {
    const summary = acrossRuns([run([['/a', 0.7995]]), run([['/a', 0.7999]]), run([['/a', 0.81]])], 0.8);
    expect(summary.atTargetPerRun).toEqual([0, 0, 1]);
    expect(summary.rows[0]?.median).toBe(0.7999);
    expect(summary.atTargetByMedian).toBe(0);
  });

  it('never counts a row a run did not measure', () => {
    const summary = acrossRuns(
      [
        run([
          ['/a', 0.9],
          ['/b', 0.9],
        ]),
        run([['/a', 0.9]]),
      ],
      0.8,
    );
    expect(summary.rows.map((r) => r.path)).toEqual(['/a', '/b']);
    expect(summary.rows[1]?.median).toBeNaN();
    expect(summary.atTargetPerRun).toEqual([2, 1]);
    expect(summary.atTargetByMedian).toBe(1);
  });
});
