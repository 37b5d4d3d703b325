import { settleWithin } from '../async';
import type { AppDeps } from '../deps';
import { computeMaxFeePerGas, TIER_HEADROOM_BLOCKS, TIER_NAMES } from '../oracle/max-fee';
import { trendFromGasUsed } from '../oracle/wallet-fees';
import type { WalletGasFields } from '../schemas/wallet-gas';
import { rankBaseFeeAmongLastWeek } from '../store/base-fee-rank';
import { describeDbError } from '../store/database';
import { gweiToWei, weiToGwei } from '../units';
import type { EtherscanGasReading } from '../upstream/etherscan';
import type { RpcGasReading } from '../upstream/rpc-mainnet-gas';

/** The wallet fields a live reading carries before the stored history ranks its base fee. */
export type LiveWalletFields = Omit<WalletGasFields, 'baseFeePercentile7d'>;

type Tiers = WalletGasFields['tiers'];

/** Converts an RPC reading's wallet view (wei) to the served fields (gwei, exact to the wei). */
export function toWalletFields(rpc: RpcGasReading): LiveWalletFields {
  const { wallet, blob } = rpc;
  const tiers = Object.fromEntries(
    TIER_NAMES.map((name) => {
      const t = wallet.wallet[name];
      return [
        name,
        {
          maxPriorityFeePerGas: weiToGwei(t.maxPriorityFeePerGas),
          maxFeePerGas: weiToGwei(t.maxFeePerGas),
          estimatedWaitSeconds: t.estimatedWaitSeconds,
        },
      ];
    }),
  ) as Tiers;
  const gwei = (wei: bigint | null | undefined) =>
    wei === null || wei === undefined ? null : weiToGwei(wei);
  return {
    nextBaseFee: weiToGwei(wallet.nextBaseFee),
    tiers,
    blobBaseFee: gwei(blob?.blobBaseFee),
    nextBlobBaseFee: gwei(blob?.nextBlobBaseFee),
    blobGasUsedRatio: blob?.blobGasUsedRatio ?? null,
    maxBlobsPerBlock: blob?.maxBlobsPerBlock ?? null,
    gasUsedRatio: wallet.gasUsedRatio,
    baseFeeTrend: wallet.baseFeeTrend,
  };
}

/**
 * The wallet fields of an explorer reading (its figures as sent, exact to the wei): its suggested base
 * fee is the next base fee, each tier's tip is the tier minus it (never below the tier before, nor 0),
 * the served tiers are that base fee plus those tips (as for live readings), and the max fees use the
 * same headroom. The gas-used ratio and the trend come from the ratios of the explorer's last blocks
 * when it sends them; it gives no per-block tips or blob data, so waits and blob fees are null.
 */
export function deriveExplorerWalletFields(
  explorer: Pick<EtherscanGasReading, 'low' | 'average' | 'high' | 'baseFee' | 'gasUsedRatios'>,
): LiveWalletFields & Pick<EtherscanGasReading, 'low' | 'average' | 'high'> {
  const nextBaseFee = gweiToWei(explorer.baseFee);
  let previous = 0n;
  const served = {} as Pick<EtherscanGasReading, 'low' | 'average' | 'high'>;
  const tiers = Object.fromEntries(
    TIER_NAMES.map((name) => {
      const over = gweiToWei(explorer[name]) - nextBaseFee;
      const tip = over > previous ? over : previous;
      previous = tip;
      const maxFee = computeMaxFeePerGas(nextBaseFee, tip, TIER_HEADROOM_BLOCKS[name]);
      served[name] = weiToGwei(nextBaseFee + tip);
      return [
        name,
        { maxPriorityFeePerGas: weiToGwei(tip), maxFeePerGas: weiToGwei(maxFee), estimatedWaitSeconds: null },
      ];
    }),
  ) as Tiers;
  const ratios = explorer.gasUsedRatios;
  return {
    ...served,
    nextBaseFee: weiToGwei(nextBaseFee),
    tiers,
    blobBaseFee: null,
    nextBlobBaseFee: null,
    blobGasUsedRatio: null,
    maxBlobsPerBlock: null,
    gasUsedRatio: ratios ? ratios.reduce((sum, r) => sum + r, 0) / ratios.length : null,
    baseFeeTrend: ratios ? trendFromGasUsed(ratios) : null,
  };
}

/** How long a reading waits for its rank: a store with no answer costs the rank, not the reading's speed. */
const RANK_DEADLINE_MS = 1_500;
/** With less time than this left before the reading's deadline, the store is not asked at all. */
const MIN_RANK_MS = 100;

/**
 * Ranks a base fee among the stored last 7 days; null when the store holds less than a day or cannot
 * be read within RANK_DEADLINE_MS or by `deadlineAt` (the reading's, see SharedKind.read), whichever
 * comes first (logged), since a missing rank must never cost the reading.
 */
export async function rankBaseFee(
  deps: Pick<AppDeps, 'withDb' | 'now' | 'log'>,
  baseFeeGwei: number,
  deadlineAt: number,
) {
  const budgetMs = Math.min(RANK_DEADLINE_MS, deadlineAt - deps.now());
  if (budgetMs < MIN_RANK_MS) {
    deps.log.warn('base fee rank unavailable', { error: 'no time left before the reading is due' });
    return null;
  }
  try {
    return await settleWithin(
      deps.withDb((db) => rankBaseFeeAmongLastWeek(db, baseFeeGwei, deps.now())),
      budgetMs,
    );
  } catch (error) {
    deps.log.warn('base fee rank unavailable', { error: describeDbError(error) });
    return null;
  }
}
