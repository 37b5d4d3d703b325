/** How a value compares with a stored sample: counts below and equal, out of the whole sample. */
export interface RankCounts {
  below: number;
  equal: number;
  total: number;
}

/**
 * Where a value ranks in a sample, 0 to 100: the share of the sample below it plus half the share
 * equal to it (the mid-rank percentile), so the cheapest value of a varied week is near 0, the dearest
 * near 100, and a value equal to the whole sample 50. Null for an empty sample. Rounded to 0.1.
 * Takes counts so a database can count in SQL instead of shipping the sample.
 */
export function computePercentileRank(counts: RankCounts): number | null {
  if (counts.total <= 0) return null;
  const rank = ((counts.below + counts.equal / 2) / counts.total) * 100;
  return Math.round(Math.min(100, Math.max(0, rank)) * 10) / 10;
}

/** The percentile rank (see computePercentileRank) of `value` among `sample`. */
export function rankAmong(value: number, sample: readonly number[]): number | null {
  let below = 0;
  let equal = 0;
  for (const x of sample) {
    if (x < value) below += 1;
    else if (x === value) equal += 1;
  }
  return computePercentileRank({ below, equal, total: sample.length });
}
