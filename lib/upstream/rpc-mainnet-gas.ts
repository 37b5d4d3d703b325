import { type AppDeps, getState } from '../deps';
import { FEE_HISTORY_BLOCKS, type FeeHistory, getNewestBlock, TIER_PERCENTILES } from '../oracle/fee-history';
import { computeTiers, type GasTiers } from '../oracle/tiers';
import { RpcAttemptError } from './rpc-errors';
import { createPoolHealth } from './rpc-health';
import { createRpcPool, getPoolStateKey, type RpcPoolOptions } from './rpc-pool';

/** Ethereum mainnet. */
export const MAINNET_CHAIN_ID = 1;

/** Tiers read live from one provider, with the block they reflect. */
export interface RpcGasReading extends GasTiers {
  /** Newest block of the fee history. */
  blockNumber: number;
  /** Timestamp (Unix seconds) of the provider's latest block. */
  blockTimestamp: number;
  /** Label of the provider that answered. */
  source: string;
}

/** A fee history and the head block it was read at, as one provider answered. */
interface FeeSample {
  history: FeeHistory;
  tiers: GasTiers;
  head: { number: bigint; timestamp: number };
}

/** The two calls of one reading may straddle a new block, or hit two backends of one load balancer. */
const MAX_HEAD_SKEW_BLOCKS = 2n;

/**
 * Reads mainnet tiers from the configured providers: `eth_feeHistory(20, latest, [70, 90, 99])` and the
 * latest block (for its timestamp) are asked at once of one provider, with hedged failover across
 * providers (see createRpcPool). Throws an RpcPoolError when no provider gives a valid, fresh answer.
 */
export async function readMainnetGasFromRpc(
  deps: Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state'>,
  overrides: Partial<RpcPoolOptions> = {},
): Promise<RpcGasReading> {
  const pool = createRpcPool(deps, {
    name: 'mainnet',
    chainId: MAINNET_CHAIN_ID,
    providers: deps.config.mainnetRpc,
    timeoutMs: deps.config.upstreamTimeoutMs,
    ...overrides,
  });
  const answer = await pool.request(
    async (client): Promise<FeeSample> => {
      const [history, block] = await Promise.all([
        client.getFeeHistory({
          blockCount: FEE_HISTORY_BLOCKS,
          blockTag: 'latest',
          rewardPercentiles: [...TIER_PERCENTILES],
        }),
        client.getBlock({ blockTag: 'latest' }),
      ]);
      if (typeof block?.number !== 'bigint' || typeof block.timestamp !== 'bigint') {
        throw new RpcAttemptError('malformed', 'latest block without number or timestamp');
      }
      const head = { number: block.number, timestamp: Number(block.timestamp) };
      const tiers = computeTiers(history as FeeHistory);
      const newest = getNewestBlock(history as FeeHistory);
      const skew = head.number > newest ? head.number - newest : newest - head.number;
      if (skew > MAX_HEAD_SKEW_BLOCKS) throw new RpcAttemptError('lag', 'fee history and head disagree');
      return { history: history as FeeHistory, tiers, head };
    },
    {
      stampOf: (sample) => ({
        blockNumber: getNewestBlock(sample.history),
        timestamp: sample.head.timestamp,
      }),
    },
  );
  const { tiers, history, head } = answer.value;
  return {
    ...tiers,
    blockNumber: Number(getNewestBlock(history)),
    blockTimestamp: head.timestamp,
    source: answer.provider,
  };
}

/**
 * The newest mainnet block a provider served in this process in the last ten minutes, or undefined;
 * lets the explorer backstop be checked for a stale backend.
 */
export function getMainnetBestBlock(deps: Pick<AppDeps, 'state' | 'now'>): number | undefined {
  const best = getState(deps, getPoolStateKey('mainnet', MAINNET_CHAIN_ID), createPoolHealth).bestBlock;
  return best && deps.now() - best.seenAt <= 10 * 60_000 ? Number(best.number) : undefined;
}
