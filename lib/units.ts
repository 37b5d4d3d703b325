import { formatGwei, parseGwei } from 'viem';

/**
 * Converts wei to gwei without losing a digit: sub-gwei fees are the norm (mainnet at 0.03 gwei, L2s at
 * 0.001-0.01 gwei), and even a few wei (1e-9 gwei) must not round to zero. Exact for any fee below
 * about 9 million gwei (2^53 wei), far above the sanity ceiling.
 */
export function weiToGwei(wei: bigint): number {
  return Number(formatGwei(wei));
}

/** Converts a served gwei figure (whole wei: 9 decimals at most) back to its exact wei. */
export function gweiToWei(gwei: number): bigint {
  return parseGwei(gwei.toFixed(9));
}

/**
 * Rounds a gwei figure computed in floating point (an average of stored readings) to whole wei, the
 * precision every other served gwei figure has: an average of 0.068393635 gwei came out as
 * 0.06839363500000001, noise past the 9th decimal that no fee has.
 */
export function roundGweiToWei(gwei: number): number {
  return Number(gwei.toFixed(9));
}
