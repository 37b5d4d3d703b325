import { computeMaxNextBaseFee } from './fee-history';

/** The three wallet tiers, cheapest first. */
export const TIER_NAMES = ['low', 'average', 'high'] as const;
export type TierName = (typeof TIER_NAMES)[number];

/**
 * How many consecutive full blocks each tier's max fee survives (the base fee rises by exactly 1/8 per
 * full block, so N blocks are a factor of about 1.125^N over the next base fee):
 * - low 2 (x1.27): an economy sender would rather wait out a spike than pay into it; viem's default
 *   1.2x (about 1.5 full blocks) and MetaMask's low 1.1x are below this, and a transaction whose max
 *   fee falls under the base fee after one busy block only waits, but it waits without warning.
 * - average 4 (x1.60): the typical sender's transaction should survive a short burst of full blocks
 *   (MetaMask's medium 1.2x is 1.5 blocks); 4 blocks is 48 s of worst-case rise, beyond the model's
 *   p90 wait at this tier in normal markets.
 * - high 6 (x2.03): ethers' `2 x base fee + tip` rule, for senders who want inclusion whatever the
 *   next minute does (MetaMask's high 1.25x covers under 2 blocks).
 * An unused max fee costs nothing (the chain charges base fee + tip and refunds the rest), so the
 * headroom only bounds the worst case a sender accepts.
 */
export const TIER_HEADROOM_BLOCKS: Readonly<Record<TierName, number>> = { low: 2, average: 4, high: 6 };

/**
 * The highest base fee `blocks` consecutive full blocks can reach from `baseFee`, exactly as EIP-1559
 * computes it: each adds floor(base / 8), at least 1 wei, and a few wei more when the gas limit is
 * odd (computeMaxNextBaseFee), so the bound holds whatever limits those blocks have.
 */
export function computeBaseFeeAfterFullBlocks(baseFee: bigint, blocks: number): bigint {
  let fee = baseFee;
  for (let i = 0; i < blocks; i += 1) fee = computeMaxNextBaseFee(fee);
  return fee;
}

/**
 * A max fee per gas (wei) that still pays `priorityFee` in full while the base fee climbs through
 * `blocks` consecutive full blocks after `nextBaseFee`, so the transaction stays includable at its
 * tip for that long. Always >= nextBaseFee + priorityFee.
 */
export function computeMaxFeePerGas(nextBaseFee: bigint, priorityFee: bigint, blocks: number): bigint {
  return computeBaseFeeAfterFullBlocks(nextBaseFee, blocks) + priorityFee;
}
