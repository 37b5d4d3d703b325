import { getBlock, getFeeHistory } from 'viem/actions';
import type { AppDeps } from '../lib/deps';
import { assertFeeHistoryShape, type FeeHistory, TIER_PERCENTILES } from '../lib/oracle/fee-history';
import { MAX_SANE_GWEI } from '../lib/oracle/sanity';
import { RpcAttemptError } from '../lib/upstream/rpc-errors';
import { MAINNET_CHAIN_ID } from '../lib/upstream/rpc-mainnet-gas';
import { createRpcPool } from '../lib/upstream/rpc-pool';
import type { BlockTime } from './backfill-timestamps';

/** Most blocks one `eth_feeHistory` call may cover (geth's limit, shared by the big providers). */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

const MAX_SANE_WEI = BigInt(MAX_SANE_GWEI) * 1_000_000_000n;

/** One `eth_feeHistory` chunk as a provider served it. */
export interface FeeChunk {
  history: FeeHistory;
  provider: string;
}

/** Historical mainnet reads for the backfill, with failover across the configured providers. */
export interface BackfillChain {
  head(): Promise<BlockTime>;
  timestampOf(block: number): Promise<number>;
  /** Fee history of blocks from..to (inclusive, at most 1,024) with the tier percentiles. */
  feeChunk(from: number, to: number): Promise<FeeChunk>;
  /** Provider calls made so far (each may have asked more than one provider). */
  readonly calls: number;
}

/**
 * Creates the backfill's reader over MAINNET_RPC_URLS for one run. It uses the live path's pool
 * (chain-id check, failover, cooldown, labels instead of URLs) under its own health key, without
 * freshness limits (history is old by design) and with a longer per-attempt budget, since a
 * 1,024-block fee history takes a public provider a second or more. Every answer is checked, so a
 * provider serving a short, shifted or malformed history is failed over like a dead one.
 */
export function createBackfillChain(
  deps: Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state'>,
  options: { timeoutMs: number },
): BackfillChain {
  const pool = createRpcPool(deps, {
    name: 'mainnet-backfill',
    chainId: MAINNET_CHAIN_ID,
    providers: deps.config.mainnetRpc,
    timeoutMs: options.timeoutMs,
    // Hedging a slow historical read would double the load on public providers; fail over on error.
    hedgeDelayMs: options.timeoutMs,
    deadlineMs: options.timeoutMs * Math.max(1, deps.config.mainnetRpc.length),
  });
  let calls = 0;
  const blockTime = async (tag: bigint | 'latest'): Promise<BlockTime> => {
    calls += 1;
    const { value } = await pool.request(async (client) => {
      const block = await getBlock(client, tag === 'latest' ? { blockTag: 'latest' } : { blockNumber: tag });
      if (typeof block?.number !== 'bigint' || typeof block.timestamp !== 'bigint') {
        throw new RpcAttemptError('malformed', 'block without number or timestamp');
      }
      if (tag !== 'latest' && block.number !== tag) throw new RpcAttemptError('malformed', 'another block');
      return { number: Number(block.number), timestamp: Number(block.timestamp) };
    });
    return value;
  };
  return {
    get calls() {
      return calls;
    },
    head: () => blockTime('latest'),
    timestampOf: async (block) => (await blockTime(BigInt(block))).timestamp,
    async feeChunk(from, to) {
      const count = to - from + 1;
      if (count < 1 || count > MAX_FEE_HISTORY_BLOCKS) throw new RangeError(`cannot ask for ${count} blocks`);
      calls += 1;
      const answer = await pool.request(async (client) => {
        const raw = await getFeeHistory(client, {
          blockCount: count,
          blockNumber: BigInt(to),
          rewardPercentiles: [...TIER_PERCENTILES],
        });
        const history = { ...raw, reward: raw.reward ?? [] } as FeeHistory;
        assertFeeHistoryShape(history, TIER_PERCENTILES.length);
        // A unit mistake or a test chain shows as absurd fees; fail over rather than store them.
        if (history.baseFeePerGas.some((fee) => fee > MAX_SANE_WEI)) {
          throw new RpcAttemptError('absurd', 'base fee above the sanity ceiling');
        }
        if (history.oldestBlock !== BigInt(from) || history.gasUsedRatio.length !== count) {
          throw new RpcAttemptError('malformed', 'fee history covers other blocks than asked');
        }
        return history;
      });
      return { history: answer.value, provider: answer.provider };
    },
  };
}
