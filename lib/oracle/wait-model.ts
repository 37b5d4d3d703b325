import type { FeeHistory } from './fee-history';

/** Mainnet's slot time since the Merge: a block (or a missed slot) every 12 seconds. */
export const SLOT_SECONDS = 12;

/** A block this full had no room left: its cheapest tip was the price of the last place. */
export const FULL_BLOCK_RATIO = 0.95;

/**
 * Half-life, in blocks, of a replay starting point's weight: the blocks just seen say most about the
 * next ones. Chosen with the tie rule below on one seed of the congested-mempool calibration (8 against
 * no decay, 4 and 2); the README reports other seeds.
 */
const HALF_LIFE_BLOCKS = 8;

/** Waits are not followed further than this many blocks (about 6.7 hours). */
const MAX_WAIT_BLOCKS = 2_000;

/** Median and 90th-percentile time to inclusion, in seconds. */
export interface WaitEstimate {
  p50: number;
  p90: number;
}

/**
 * The chance that block `i` of a fee history would have taken a transaction paying `tip` (wei per gas,
 * effective), judged from the block's cheapest included tips (its reward at a low percentile, column
 * `cutoffColumn`): builders fill blocks by tip, so a block that took a cheaper tip would have taken
 * this one (1). In a full block the cheapest tip was the price of the last place, and a new transaction
 * at exactly that price queues behind the ones already waiting at it (clients order equal tips by
 * arrival): it counts as a miss (0), like a lower tip (counting it half made p90 cover only 71 % of
 * the cheapest third in the calibration run, against 74 % with 0). A block
 * with room left that included nothing as cheap says nothing for this tip; it counts as a miss (0),
 * the cautious reading. Empty blocks are null: they say nothing about the tip market.
 */
export function computeClearChance(
  history: FeeHistory,
  cutoffColumn: number,
  i: number,
  tip: bigint,
): number | null {
  const ratio = history.gasUsedRatio[i] ?? 0;
  if (ratio === 0) return null;
  const cutoff = history.reward[i]?.[cutoffColumn] ?? 0n;
  if (tip > cutoff) return 1;
  if (tip < cutoff) return 0;
  return ratio >= FULL_BLOCK_RATIO ? 0 : 1;
}

/**
 * The per-block chance of inclusion for `tip` over a fee history's non-empty blocks, smoothed with
 * half a block on each side (Jeffreys) so that no tip is promised certainty or refused forever.
 */
export function estimateInclusionProbability(history: FeeHistory, cutoffColumn: number, tip: bigint): number {
  const chances = clearChances(history, cutoffColumn, tip);
  return (chances.reduce((sum, c) => sum + c, 0) + 0.5) / (chances.length + 1);
}

/**
 * Estimates the time to inclusion of a transaction paying `tip` by replaying the recent blocks: a
 * transaction sent before each of the window's non-empty blocks meets that block and the ones after it
 * in order, each taking it with its clear chance (computeClearChance); past the window's end every
 * further block takes it with the window's smoothed per-block probability. The waits of all those
 * starting points are pooled, weighted towards the latest (half-life 8 blocks), so runs of busy blocks
 * (a backlog that clears slowly) lengthen the tail as they did on chain, which independent blocks
 * would not. Quantiles are in 12-second slots (the end
 * of the k-th slot from now, an upper bound for a transaction sent mid-slot).
 */
export function estimateWait(history: FeeHistory, cutoffColumn: number, tip: bigint): WaitEstimate {
  const chances = clearChances(history, cutoffColumn, tip);
  const tail = estimateInclusionProbability(history, cutoffColumn, tip);
  if (chances.length === 0) return estimateWaitSeconds(tail);
  // survival[s]: chance that a transaction sent before block s is still waiting.
  const survival = chances.map(() => 1);
  const weights = chances.map((_, s) => 2 ** ((s - chances.length + 1) / HALF_LIFE_BLOCKS));
  const totalWeight = weights.reduce((sum, w) => sum + w, 0);
  const quantiles = { p50: 0, p90: 0 };
  for (let k = 1; k <= MAX_WAIT_BLOCKS && quantiles.p90 === 0; k += 1) {
    let included = 0;
    chances.forEach((_, s) => {
      const chance = chances[s + k - 1] ?? tail;
      survival[s] = (survival[s] as number) * (1 - chance);
      included += (1 - (survival[s] as number)) * (weights[s] as number);
    });
    const share = included / totalWeight;
    if (quantiles.p50 === 0 && share >= 0.5) quantiles.p50 = k * SLOT_SECONDS;
    if (share >= 0.9) quantiles.p90 = k * SLOT_SECONDS;
  }
  const cap = MAX_WAIT_BLOCKS * SLOT_SECONDS;
  return { p50: quantiles.p50 || cap, p90: quantiles.p90 || cap };
}

/**
 * Turns a per-block inclusion probability into wait times for independent blocks (geometric): the
 * p-quantile is the first block count k with 1 - (1 - p)^k >= q, in 12-second slots.
 */
export function estimateWaitSeconds(probability: number): WaitEstimate {
  const p = Math.min(1, Math.max(1e-6, probability));
  const blocksFor = (quantile: number) =>
    p >= 1 ? 1 : Math.min(MAX_WAIT_BLOCKS, Math.max(1, Math.ceil(Math.log(1 - quantile) / Math.log(1 - p))));
  return { p50: blocksFor(0.5) * SLOT_SECONDS, p90: blocksFor(0.9) * SLOT_SECONDS };
}

function clearChances(history: FeeHistory, cutoffColumn: number, tip: bigint): number[] {
  return history.gasUsedRatio.flatMap((_, i) => {
    const chance = computeClearChance(history, cutoffColumn, i, tip);
    return chance === null ? [] : [chance];
  });
}
