import { weiToGwei } from '../units';
import { assertFeeHistoryShape, type FeeHistory, OracleError } from './fee-history';
import { assertSaneTiers } from './sanity';

/** Low, average and high fee per gas in gwei, plus the next block's base fee they are built on. */
export interface GasTiers {
  low: number;
  average: number;
  high: number;
  baseFee: number;
}

/**
 * Middle value of a list of wei amounts (mean of the two middle ones for an even count), or 0 for none.
 * The median ignores the odd block where one bidder paid a huge tip, which a mean would not.
 */
export function computeMedian(values: readonly bigint[]): bigint {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] as bigint;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] as bigint) + upper) / 2n;
}

/**
 * Computes, for each reward percentile a fee history was asked with, a fee per gas in wei: the next
 * block's base fee plus the median, over the non-empty blocks, of that percentile's priority fee.
 * Empty blocks (gas used ratio 0) report a reward of 0 that says nothing about what it takes to be
 * included, so they are left out; with no non-empty block the tip is 0. The next base fee is the
 * history's own unless given (a head newer than the history's newest block). Throws an OracleError
 * when the history is malformed.
 */
export function computePercentileFees(
  history: FeeHistory,
  percentileCount: number,
  nextBaseFeeGiven?: bigint,
): bigint[] {
  assertFeeHistoryShape(history, percentileCount);
  const nextBaseFee = nextBaseFeeGiven ?? (history.baseFeePerGas[history.baseFeePerGas.length - 1] as bigint);
  const filled = history.reward.filter((_, i) => (history.gasUsedRatio[i] ?? 0) > 0);
  return Array.from(
    { length: percentileCount },
    (_, column) => nextBaseFee + computeMedian(filled.map((row) => row[column] as bigint)),
  );
}

/**
 * Computes the tiers from a fee history asked with the three tier percentiles (70, 90, 99): see
 * computePercentileFees. The result is in gwei exact to the wei (so each tier is exactly the next base
 * fee plus its tip, and never below that base fee), ordered low <= average <= high, positive and
 * below the sanity ceiling, or an OracleError is thrown.
 */
export function computeTiers(history: FeeHistory, nextBaseFeeGiven?: bigint): GasTiers {
  // Rows are checked ascending, so their per-column medians are too; assertSaneTiers checks the order.
  const [low, average, high] = computePercentileFees(history, 3, nextBaseFeeGiven).map(weiToGwei) as [
    number,
    number,
    number,
  ];
  const nextBaseFee = nextBaseFeeGiven ?? (history.baseFeePerGas[history.baseFeePerGas.length - 1] as bigint);
  const tiers = { low, average, high, baseFee: weiToGwei(nextBaseFee) };
  assertSaneTiers(tiers);
  return tiers;
}

export { OracleError };
