import type { L2Network } from './networks';

/** A ready-to-send EIP-1559 fee pair for one L2, in wei. */
export interface L2FeeSuggestion {
  baseFee: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
}

/**
 * The max fee is twice the base fee plus the tip (ethers' rule): it survives a doubling of the base
 * fee, which takes at least 6 consecutive full blocks under the fastest EIP-1559 adjustment (1/8 per
 * block, Polygon) and far more on OP Stack (at most 2 % per block) or on Arbitrum, whose base fee
 * follows a slow backlog-based model.
 */
export const L2_BASE_FEE_MULTIPLIER = 2n;

/**
 * Suggests the fee pair of a network from its latest base fee and the chain's own tip suggestion
 * (eth_maxPriorityFeePerGas): Arbitrum a tip of 0 (tips are ignored), OP Stack the chain's own
 * suggestion, Polygon the suggestion but never below the 25 gwei its nodes enforce (a missing
 * suggestion there means the floor). Null when the base fee, or a market tip the chain must give, is
 * unknown.
 */
export function suggestL2Fees(
  network: Pick<L2Network, 'priorityFee' | 'minPriorityFeeWei'>,
  baseFee: bigint | null,
  suggestedTip: bigint | null,
): L2FeeSuggestion | null {
  if (baseFee === null) return null;
  let tip: bigint | null = 0n;
  if (network.priorityFee === 'market') {
    const floor = network.minPriorityFeeWei;
    tip = suggestedTip ?? floor ?? null;
    if (tip !== null && floor !== undefined && tip < floor) tip = floor;
  }
  if (tip === null) return null;
  return { baseFee, maxPriorityFeePerGas: tip, maxFeePerGas: L2_BASE_FEE_MULTIPLIER * baseFee + tip };
}
