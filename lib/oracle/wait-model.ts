import type { FeeHistory } from './fee-history';

/** Mainnet's slot time since the Merge: a block (or a missed slot) every 12 seconds. */
export const SLOT_SECONDS = 12;

/** Median and 90th-percentile time to inclusion, in seconds. */
export interface WaitEstimate {
  p50: number;
  p90: number;
}

/**
 * Estimates the chance that a transaction paying `tip` (wei per gas, effective) is included in any one
 * of the next blocks, from the recent blocks of a fee history whose reward column `cutoffColumn` holds
 * a low percentile (the 1st) of each block's tips: a block whose cheapest included tips were at or
 * below `tip` would have taken this transaction too, since builders fill blocks by tip. Empty blocks
 * say nothing about the tip market and are left out. The count is smoothed with half a block on each
 * side (Jeffreys), so a tip every recent block cleared is not promised certainty and a tip none
 * cleared still gets a finite, long wait.
 */
export function estimateInclusionProbability(history: FeeHistory, cutoffColumn: number, tip: bigint): number {
  let blocks = 0;
  let cleared = 0;
  history.reward.forEach((row, i) => {
    if ((history.gasUsedRatio[i] ?? 0) === 0) return;
    blocks += 1;
    if (tip >= (row[cutoffColumn] ?? 0n)) cleared += 1;
  });
  return (cleared + 0.5) / (blocks + 1);
}

/**
 * Turns a per-block inclusion probability into wait times: blocks are independent tries, so the wait
 * is geometric; the p-quantile is the first block count k with 1 - (1 - p)^k >= q, in 12-second slots
 * (the time to the end of the k-th slot from now, an upper bound for a transaction sent mid-slot).
 */
export function estimateWaitSeconds(probability: number): WaitEstimate {
  const p = Math.min(1, Math.max(1e-6, probability));
  const blocksFor = (quantile: number) =>
    p >= 1 ? 1 : Math.max(1, Math.ceil(Math.log(1 - quantile) / Math.log(1 - p)));
  return { p50: blocksFor(0.5) * SLOT_SECONDS, p90: blocksFor(0.9) * SLOT_SECONDS };
}
