import type { L2Network } from './networks';

/**
 * A ready-to-send EIP-1559 fee pair for one L2, in wei, with the base fee it is built on; the pair is
 * null when the chain's market tip could not be read (the base fee still stands).
 */
export interface L2FeeSuggestion {
  baseFee: bigint;
  pair: { maxPriorityFeePerGas: bigint; maxFeePerGas: bigint } | null;
}

/**
 * The max fee is twice the base fee plus the tip (ethers' rule): it survives a doubling of the base
 * fee, which takes consecutive full blocks under the L2s' EIP-1559 adjustments: about 35 on OP Stack (at
 * most 2 % a block); on Polygon about 83 at Bor's default (at most about 0.84 % a block: change
 * denominator 64, gas target 65 %), yet at least 15 where producers set a steeper denominator (since
 * Lisovo consensus only bounds a change to 5 % a block), 15 s of its 1-s blocks; more on Arbitrum,
 * whose base fee follows a slow backlog-based model. The doubling counts from the reading: a last
 * good reading older than the live cadence gets no pair (see presentNetwork).
 */
export const L2_BASE_FEE_MULTIPLIER = 2n;

/**
 * Suggests the fee pair of a network from its latest base fee and the chain's own tip suggestion
 * (eth_maxPriorityFeePerGas): Arbitrum a tip of 0 (tips are ignored), OP Stack the chain's own
 * suggestion, Polygon the suggestion but never below the 25 gwei its nodes enforce (a missing
 * suggestion there means the floor). Null when the base fee is unknown; no pair when a market tip
 * the chain must give is unknown.
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
  if (tip === null) return { baseFee, pair: null };
  return {
    baseFee,
    pair: { maxPriorityFeePerGas: tip, maxFeePerGas: L2_BASE_FEE_MULTIPLIER * baseFee + tip },
  };
}
