/** Median milliseconds of `runs` calls of `fn` after two warm-up calls (the JIT settles first). */
export function medianMs(runs: number, fn: () => unknown): number {
  fn();
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}
