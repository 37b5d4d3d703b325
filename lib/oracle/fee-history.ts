/** Reward percentiles asked of `eth_feeHistory`, one per tier: low, average, high (SPEC.md section 1). */
export const TIER_PERCENTILES = [70, 90, 99] as const;

/** Number of recent blocks the tiers are computed over. */
export const FEE_HISTORY_BLOCKS = 20;

/**
 * Percentiles the live reading asks of `eth_feeHistory`: the 1st, where a block's cheapest included
 * tips sit (the wait model's inclusion cut-off), then the three tier percentiles.
 */
export const READING_PERCENTILES = [1, ...TIER_PERCENTILES] as const;

/**
 * One `eth_feeHistory` answer in wei, as viem decodes it. `baseFeePerGas` has one entry more than
 * there are blocks: the base fee of the block after the newest one.
 */
export interface FeeHistory {
  oldestBlock: bigint;
  baseFeePerGas: bigint[];
  gasUsedRatio: number[];
  reward: bigint[][];
  /** EIP-4844 blob base fee per block, plus the next block's; absent on nodes without blob fields. */
  baseFeePerBlobGas?: bigint[];
  /** Blob gas used / the block's maximum blob gas, per block; absent with the blob fee. */
  blobGasUsedRatio?: number[];
}

/**
 * A fee history restricted to some of its reward columns (by index), e.g. the tier columns of a
 * history that was also asked for the wait model's percentile.
 */
export function selectRewardColumns(history: FeeHistory, columns: readonly number[]): FeeHistory {
  return { ...history, reward: history.reward.map((row) => columns.map((c) => row[c] as bigint)) };
}

/** Why a fee history (or the tiers derived from it) cannot be served. */
export class OracleError extends Error {
  override name = 'OracleError';
}

/** Number of the newest block a fee history covers. */
export function getNewestBlock(history: FeeHistory): bigint {
  return history.oldestBlock + BigInt(history.gasUsedRatio.length) - 1n;
}

/**
 * Checks that a fee history has the shape the protocol promises for `percentileCount` percentiles:
 * matching lengths, ratios in [0, 1], no negative fee, rewards ascending within a block, and a next
 * base fee within EIP-1559's one-block bound of the newest block's. A provider failing this is
 * treated as broken, not as a market move. Throws an OracleError naming the first fault.
 */
export function assertFeeHistoryShape(history: FeeHistory, percentileCount: number): void {
  const arrays = [history.baseFeePerGas, history.gasUsedRatio, history.reward];
  if (!arrays.every(Array.isArray) || typeof history.oldestBlock !== 'bigint') {
    throw new OracleError('fee history is missing fields');
  }
  const blocks = history.gasUsedRatio.length;
  if (blocks < 1 || blocks > 1024) throw new OracleError(`fee history covers ${blocks} blocks`);
  if (history.oldestBlock < 0n) throw new OracleError('negative oldest block');
  if (history.baseFeePerGas.length !== blocks + 1) throw new OracleError('baseFeePerGas length mismatch');
  if (history.reward.length !== blocks) throw new OracleError('reward length mismatch');
  for (const ratio of history.gasUsedRatio) {
    if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
      throw new OracleError('gasUsedRatio out of [0, 1]');
  }
  for (const fee of history.baseFeePerGas) {
    if (typeof fee !== 'bigint' || fee <= 0n) throw new OracleError('non-positive base fee');
  }
  for (const row of history.reward) {
    if (row.length !== percentileCount) throw new OracleError('reward row length mismatch');
    for (const [i, value] of row.entries()) {
      if (typeof value !== 'bigint' || value < 0n) throw new OracleError('negative reward');
      const previous = row[i - 1];
      if (previous !== undefined && value < previous) throw new OracleError('rewards not ascending');
    }
  }
  const next = history.baseFeePerGas[blocks] as bigint;
  const newest = history.baseFeePerGas[blocks - 1] as bigint;
  // EIP-1559 lowers the base fee by at most 1/8 per block and raises it by at most a full block's rise.
  if (next > computeMaxNextBaseFee(newest) || next * 8n + 8n < newest * 7n) {
    throw new OracleError('next base fee breaks the EIP-1559 bound');
  }
}

/**
 * The EIP-1559 base fee of the block after one with `baseFee`, `gasUsed` and `gasLimit` (elasticity 2,
 * change denominator 8), as every mainnet client computes it. Used to cross-check providers and tests.
 */
export function computeNextBaseFee(baseFee: bigint, gasUsed: bigint, gasLimit: bigint): bigint {
  const target = gasLimit / 2n;
  if (target === 0n || gasUsed === target) return baseFee;
  if (gasUsed > target) {
    const delta = (baseFee * (gasUsed - target)) / target / 8n;
    return baseFee + (delta > 1n ? delta : 1n);
  }
  return baseFee - (baseFee * (target - gasUsed)) / target / 8n;
}

/**
 * The smallest gas target mainnet has had since London (a 30M gas limit). A full block over an odd
 * gas limit 2T + 1 uses T + 1 gas above its target T, so the base fee rises by
 * floor(floor(base × (T + 1) / T) / 8): up to base / 8T wei more than floor(base / 8), and the more
 * the smaller T. Odd limits are common while validators move the limit. A bound taken at this target
 * holds for every gas limit mainnet has had since.
 */
export const MIN_MAINNET_GAS_TARGET = 15_000_000n;

/**
 * The highest base fee EIP-1559 allows in the block after one with `baseFee`, whatever the gas limit:
 * after an exactly full block over an odd limit at the smallest target.
 */
export function computeMaxNextBaseFee(baseFee: bigint): bigint {
  const limit = 2n * MIN_MAINNET_GAS_TARGET + 1n;
  return computeNextBaseFee(baseFee, limit, limit);
}
