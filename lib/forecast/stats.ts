/** Returns the median of `values` (NaN when empty); the robust centre used throughout the forecaster. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Returns the `q` quantile (0..1) of `values` with linear interpolation; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  return quantileOfSorted(
    [...values].sort((a, b) => a - b),
    q,
  );
}

/** Returns the `q` quantile of values already sorted ascending (as `quantile`, without the sort). */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sorted[below] ?? Number.NaN;
  const high = sorted[above] ?? low;
  return low + (high - low) * (position - below);
}

/** Returns the standard normal CDF (Abramowitz–Stegun 7.1.26, error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Rounds to `digits` significant digits, so sub-gwei fees keep their precision and big ones no noise. */
export function roundSignificant(value: number, digits = 4): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  return Number(value.toPrecision(digits));
}

/**
 * Returns the weighted median of `values` (NaN when empty or weightless): the value where the
 * cumulative weight first reaches half, so recent hours can count more without one spike counting.
 */
export function weightedMedian(values: readonly number[], weights: readonly number[]): number {
  const order = values.map((_, i) => i).sort((a, b) => (values[a] ?? 0) - (values[b] ?? 0));
  let total = 0;
  for (const w of weights) total += w;
  if (!(total > 0)) return Number.NaN;
  let cumulative = 0;
  for (let j = 0; j < order.length; j++) {
    const i = order[j] ?? 0;
    cumulative += weights[i] ?? 0;
    if (cumulative < total / 2) continue;
    // Exactly half the weight below: the midpoint, so equal weights give the plain median.
    const next = order[j + 1];
    if (next !== undefined && Math.abs(cumulative - total / 2) < 1e-12 * total) {
      return ((values[i] ?? 0) + (values[next] ?? 0)) / 2;
    }
    return values[i] ?? Number.NaN;
  }
  return Number.NaN;
}

/** Returns the index at which `value` keeps `sorted` (ascending) sorted: before any equal entries. */
export function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((sorted[mid] ?? 0) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Inserts `value` into an ascending array in place. */
export function insertSorted(sorted: number[], value: number): void {
  sorted.splice(lowerBound(sorted, value), 0, value);
}

/** Removes one entry equal to `value` from an ascending array in place (none: no change). */
export function removeSorted(sorted: number[], value: number): void {
  const i = lowerBound(sorted, value);
  if (sorted[i] === value) sorted.splice(i, 1);
}
