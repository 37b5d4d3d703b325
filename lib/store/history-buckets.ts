import { SLOT_SECONDS } from './slots';

/** Length in seconds of each gas-history range (SPEC 4.1). */
export const RANGE_SECONDS = {
  '10m': 600,
  '30m': 1_800,
  '2h': 7_200,
  '6h': 21_600,
  '1d': 86_400,
  '7d': 604_800,
  '30d': 2_592_000,
} as const;

export type HistoryRange = keyof typeof RANGE_SECONDS;

/** Most points a gas-history answer may hold (SPEC 4.2 rule 3, decision 9). */
export const MAX_POINTS = 300;

/**
 * Bucket sizes a range may use, in seconds. Each is a whole number of 90-second slots, so every full
 * bucket averages the same number of snapshots, and each reads as a round clock interval.
 */
export const BUCKET_LADDER_SECONDS = [
  SLOT_SECONDS,
  180,
  360,
  900,
  1_800,
  3_600,
  7_200,
  10_800,
  21_600,
  43_200,
  86_400,
] as const;

/**
 * Picks the smallest ladder size whose aligned buckets keep a range at MAX_POINTS or fewer, counting
 * the partial bucket at each end (a window that does not start on a boundary touches one more).
 */
export function chooseBucketSeconds(rangeSeconds: number): number {
  for (const size of BUCKET_LADDER_SECONDS) {
    if (Math.ceil(rangeSeconds / size) + 1 <= MAX_POINTS) return size;
  }
  throw new Error(`no bucket size keeps ${rangeSeconds} s at ${MAX_POINTS} points`);
}

/** Returns the start (epoch ms) of the aligned bucket holding `ms`: floor(epoch / size) * size. */
export function bucketStartOf(ms: number, bucketSeconds: number): number {
  const sizeMs = bucketSeconds * 1000;
  return Math.floor(ms / sizeMs) * sizeMs;
}

/** The window a range covers, ending at `nowMs`: slots with fromMs < slot start <= toMs. */
export function rangeWindow(range: HistoryRange, nowMs: number): { fromMs: number; toMs: number } {
  return { fromMs: nowMs - RANGE_SECONDS[range] * 1000, toMs: nowMs };
}
