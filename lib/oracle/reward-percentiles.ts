/** One included transaction as the fee-history percentiles see it. */
export interface IncludedTx {
  /** Effective priority fee per gas in wei: min(maxPriorityFee, maxFee - baseFee), or gasPrice - baseFee. */
  reward: bigint;
  /** Gas the transaction used; it weights the transaction in the percentiles. */
  gasUsed: bigint;
}

/**
 * Computes a block's `eth_feeHistory` reward percentiles the way geth (and EDR) do: transactions sorted
 * by reward, each weighted by its gas used; percentile p is the reward of the first transaction at which
 * the running gas reaches p % of the block's gas. An empty block gives zeros. Lets tests derive the
 * expected reward rows from real transactions rather than trusting a node.
 */
export function computeRewardPercentiles(
  txs: readonly IncludedTx[],
  percentiles: readonly number[],
): bigint[] {
  if (txs.length === 0) return percentiles.map(() => 0n);
  const sorted = [...txs].sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0));
  const totalGas = sorted.reduce((sum, tx) => sum + tx.gasUsed, 0n);
  let index = 0;
  let running = sorted[0]?.gasUsed ?? 0n;
  return percentiles.map((p) => {
    // geth floors the threshold in gas units; percentiles may be fractional (12.5), hence the scaling.
    const threshold = (totalGas * BigInt(Math.round(p * 1_000_000))) / 100_000_000n;
    while (running < threshold && index < sorted.length - 1) {
      index += 1;
      running += sorted[index]?.gasUsed ?? 0n;
    }
    return sorted[index]?.reward ?? 0n;
  });
}
