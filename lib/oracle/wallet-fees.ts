import { type FeeHistory, READING_PERCENTILES, selectRewardColumns } from './fee-history';
import { computeMaxFeePerGas, TIER_HEADROOM_BLOCKS, TIER_NAMES, type TierName } from './max-fee';
import { computeMedian, computePercentileFees, computeTiers, type GasTiers } from './tiers';
import { estimateWait, type WaitEstimate } from './wait-model';

/** One tier as a wallet sends it, in wei, with its expected wait. */
export interface WalletTier {
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  estimatedWaitSeconds: WaitEstimate;
}

export type BaseFeeTrend = 'rising' | 'falling' | 'flat';

/** Everything a fee history asked with READING_PERCENTILES gives a wallet. */
export interface WalletFees {
  /** The original tiers (gwei, exact to the wei): next base fee + the tier's priority fee. */
  tiers: GasTiers;
  nextBaseFee: bigint;
  wallet: Record<TierName, WalletTier>;
  /** Mean gas used / gas limit over the window. */
  gasUsedRatio: number;
  baseFeeTrend: BaseFeeTrend;
}

/** The next base fee differs from the window's median by more than this to count as a trend. */
const TREND_THRESHOLD = 0.05;
const CUTOFF_COLUMN = 0;
const TIER_COLUMNS = READING_PERCENTILES.map((_, i) => i).slice(1);

/**
 * Computes the wallet view of a fee history asked with READING_PERCENTILES (1, 70, 90, 99): the
 * original tiers from the 70/90/99 columns; per tier the priority fee (the median of its percentile
 * over the non-empty blocks), a max fee covering the tier's number of full blocks
 * (TIER_HEADROOM_BLOCKS) and the wait the model expects at that tip; the window's mean gas-used
 * ratio; and the base-fee trend (next base fee against the window's median, +/- 5 %). The next base
 * fee is the history's own, unless a newer head gave `nextBaseFee`. Throws an OracleError for a
 * malformed history or insane tiers.
 */
export function computeWalletFees(history: FeeHistory, nextBaseFeeGiven?: bigint): WalletFees {
  const tierHistory = selectRewardColumns(history, TIER_COLUMNS);
  const tiers = computeTiers(tierHistory, nextBaseFeeGiven);
  const nextBaseFee = nextBaseFeeGiven ?? (history.baseFeePerGas[history.baseFeePerGas.length - 1] as bigint);
  const fees = computePercentileFees(tierHistory, TIER_COLUMNS.length, nextBaseFee);
  const wallet = {} as Record<TierName, WalletTier>;
  let previousTip = 0n;
  TIER_NAMES.forEach((name, i) => {
    // Keep the tips ordered even if a provider's medians are not (they are for ascending rows).
    const median = (fees[i] as bigint) - nextBaseFee;
    const tip = median > previousTip ? median : previousTip;
    previousTip = tip;
    wallet[name] = {
      maxPriorityFeePerGas: tip,
      maxFeePerGas: computeMaxFeePerGas(nextBaseFee, tip, TIER_HEADROOM_BLOCKS[name]),
      estimatedWaitSeconds: estimateWait(history, CUTOFF_COLUMN, tip),
    };
  });
  const ratios = history.gasUsedRatio;
  const gasUsedRatio = ratios.reduce((sum, r) => sum + r, 0) / ratios.length;
  return { tiers, nextBaseFee, wallet, gasUsedRatio, baseFeeTrend: classifyTrend(history, nextBaseFee) };
}

/** Rising or falling when the next base fee is more than 5 % from the window's median base fee. */
export function classifyTrend(history: FeeHistory, nextBaseFee: bigint): BaseFeeTrend {
  const median = Number(computeMedian(history.baseFeePerGas.slice(0, -1)));
  return trendOfChange((Number(nextBaseFee) - median) / median);
}

/** Rising or falling for a relative change beyond +/- 5 %, else flat. */
function trendOfChange(change: number): BaseFeeTrend {
  if (change > TREND_THRESHOLD) return 'rising';
  if (change < -TREND_THRESHOLD) return 'falling';
  return 'flat';
}

/**
 * The trend an explorer's gas-used ratios of its last few blocks imply (it gives no base fees): EIP-1559
 * moves each block's base fee by (2 x ratio - 1) / 8, so the next base fee against the base fee before
 * those blocks is the product of their factors, whatever their order; rising or falling beyond the
 * same 5 % as a fee history's trend.
 */
export function trendFromGasUsed(ratios: readonly number[]): BaseFeeTrend {
  return trendOfChange(ratios.reduce((product, r) => product * (1 + (2 * r - 1) / 8), 1) - 1);
}
