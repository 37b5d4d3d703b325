// The summary of `npm run bench -- throughput --runs N`: each row's ratio over fresh starts.
import { median } from '../lib/forecast/stats';

/** The least ratio of the host's req/s to the same-headers app's. */
const TARGET_RATIO = 0.8;

/**
 * Each row's ratio in every run and its median over the runs, and how many rows reach `target` in
 * each run and by that median. A host process keeps the speed it started with for its life (docs/benchmark-history.md,
 * "Pinned CPUs"), so one run measures one start; the median over fresh starts measures the code.
 * A row missing from a run counts as NaN there (never at the target), and so does its median.
 */
export function acrossRuns(ratios: Map<string, number>[], target: number) {
  const paths = [...new Set(ratios.flatMap((r) => [...r.keys()]))];
  const rows = paths.map((path) => {
    const perRun = ratios.map((r) => r.get(path) ?? Number.NaN);
    return { path, perRun, median: perRun.some(Number.isNaN) ? Number.NaN : median(perRun) };
  });
  const atTarget = (values: number[]) => values.filter((v) => v >= target).length;
  return {
    rows,
    atTargetPerRun: ratios.map((_, i) => atTarget(rows.map((r) => r.perRun[i] ?? Number.NaN))),
    atTargetByMedian: atTarget(rows.map((r) => r.median)),
  };
}

/** A table with the first column left-aligned and the others right-aligned. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

/**
 * With `--runs N`: each row's ratio in every run and its median over the runs (`acrossRuns`); `of`
 * names what was measured against the same-headers app (the host, or with `--aa` the twin).
 */
export function summariseRuns(ratios: Map<string, number>[], of = 'the host'): void {
  const summary = acrossRuns(ratios, TARGET_RATIO);
  console.log(
    `\nover ${ratios.length} runs, each with a fresh npm start and constant app: req/s ratio of ${of} to the same-headers app`,
  );
  printTable(
    ['endpoint', ...ratios.map((_, i) => `run ${i + 1}`), 'median of runs'],
    // Three decimals: a ratio just under the target must not print as 0.80.
    summary.rows.map((r) => [r.path, ...r.perRun.map((v) => v.toFixed(3)), r.median.toFixed(3)]),
  );
  console.log(
    `rows at ${TARGET_RATIO}x or better: ${summary.atTargetPerRun.join(', ')} of ${summary.rows.length} per run; ` +
      `${summary.atTargetByMedian} of ${summary.rows.length} by the median of runs`,
  );
}
