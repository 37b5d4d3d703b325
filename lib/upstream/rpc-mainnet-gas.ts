import { getBlock } from 'viem/actions';
import type { AppDeps } from '../deps';
import { type BlobFees, readBlobFees } from '../oracle/blob-fees';
import {
  computeMaxNextBaseFee,
  computeNextBaseFee,
  FEE_HISTORY_BLOCKS,
  type FeeHistory,
  getNewestBlock,
  READING_PERCENTILES,
} from '../oracle/fee-history';
import type { GasTiers } from '../oracle/tiers';
import { computeWalletFees, type WalletFees } from '../oracle/wallet-fees';
import { parseFeeHistory } from './fee-history-wire';
import { classifyRpcError, RpcAttemptError, type RpcFailureKind } from './rpc-errors';
import { createRpcPool, isQuantity, type RpcClient, type RpcPoolOptions, rpcCall } from './rpc-pool';

/** Ethereum mainnet. */
export const MAINNET_CHAIN_ID = 1;

/** Tiers read live from one provider, with the block they reflect and the wallet view of it. */
export interface RpcGasReading extends GasTiers {
  /** The block the reading reflects: its next base fee is the one served. */
  blockNumber: number;
  /** That block's timestamp (Unix seconds). */
  blockTimestamp: number;
  /** Label of the provider that answered. */
  source: string;
  wallet: Omit<WalletFees, 'tiers'>;
  /** The blob fee market; every part null when this provider gives no blob data. */
  blob: BlobFees | null;
}

/** A fee history and the head block it was read at, as one provider answered. */
interface FeeSample {
  fees: WalletFees;
  blob: BlobFees | null;
  /** Why the provider gave no blob data (a failure kind or `absent`), for the log line. */
  blobMissing?: RpcFailureKind | 'absent';
  /**
   * The block the served fees follow: the newer of the head and the fee history's newest block (the
   * two calls may straddle a block, or reach two backends). The fee history's block is stamped with
   * the head's time less a slot for each block it is behind, so a reading never looks fresher than
   * its fees are.
   */
  block: { number: bigint; timestamp: number };
}

/** The two calls of one reading may straddle a new block, or hit two backends of one load balancer. */
const MAX_HEAD_SKEW_BLOCKS = 2n;

/** A real head and its time (block 24283622, 2026-01-21 13:59:59 UTC; shared/data blob sample). */
const REFERENCE_BLOCK = 24_283_622;
const REFERENCE_TIMESTAMP = 1_769_003_999;
/** Mainnet's slot time: at most one block each. */
export const SLOT_SECONDS = 12;
/** A day of 12-s slots: the margin both bounds below keep. */
const DAY_OF_BLOCKS = 7_200;
/** Share of slots that may stay empty (0.78 % did from the Merge to the reference head). */
const MAX_MISSED_SLOTS = 0.02;
/** Blocks per 12-s slot the ceiling allows: twice today's one, so a fork that halves slots breaks nothing. */
const CEILING_BLOCKS_PER_SLOT = 2;

/**
 * Returns the highest number a mainnet block stamped `timestamp` (Unix seconds) can plausibly have:
 * the reference head plus two blocks per 12-s slot since, and a day's blocks. Mainnet's heads stay
 * well below it (at most one block a slot today), while the big L2s' and sidechains' heads stay above
 * it (Base, OP Mainnet, Polygon PoS and Arbitrum One were all higher at the reference time and count
 * blocks 3 to 24 times as fast). A head above it is not mainnet's, whatever `eth_chainId` said when it
 * was last asked.
 */
export function computeMainnetBlockCeiling(timestamp: number): bigint {
  const slots = Math.max(0, Math.floor((timestamp - REFERENCE_TIMESTAMP) / SLOT_SECONDS));
  return BigInt(REFERENCE_BLOCK + CEILING_BLOCKS_PER_SLOT * slots + DAY_OF_BLOCKS);
}

/**
 * Returns the lowest number mainnet's head can have at `nowMs`, from the clock alone: the reference
 * head plus every 12-s slot since, less 2 % of them and a day's blocks; undefined before the
 * reference time. A reading older than that (days behind) is a stuck backend, whoever serves it.
 */
export function computeMainnetHeadFloor(nowMs: number): number | undefined {
  const slots = Math.floor(nowMs / 1000 - REFERENCE_TIMESTAMP) / SLOT_SECONDS;
  if (!(slots >= 0)) return undefined;
  return Math.floor(REFERENCE_BLOCK + slots * (1 - MAX_MISSED_SLOTS) - DAY_OF_BLOCKS);
}

/**
 * Reads mainnet gas from the configured providers in one batched JSON-RPC round trip per provider:
 * `eth_feeHistory(20, latest, [1, 70, 90, 99])` (with its blob fields), the latest block (timestamp,
 * blob header fields) and `eth_blobBaseFee`, with hedged failover across providers (see
 * createRpcPool). A provider without blob support still serves everything else (blob fields null, a
 * log line naming it); an absurd or inconsistent answer, blob part included, rejects the provider.
 * Throws an RpcPoolError when no provider gives a valid, fresh answer.
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
    batch: true,
    ...overrides,
  });
  const answer = await pool.request(readSample, {
    stampOf: (sample) => ({
      blockNumber: sample.block.number,
      timestamp: sample.block.timestamp,
    }),
  });
  const { fees, block, blob, blobMissing } = answer.value;
  if (blobMissing) deps.log.warn('blob fees unavailable', { provider: answer.provider, kind: blobMissing });
  const { tiers, ...wallet } = fees;
  return {
    ...tiers,
    blockNumber: Number(block.number),
    blockTimestamp: block.timestamp,
    source: answer.provider,
    wallet,
    blob,
  };
}

async function readSample(client: RpcClient): Promise<FeeSample> {
  const call = rpcCall(client);
  const askFeeHistory = (newest: string) =>
    call('eth_feeHistory', [`0x${FEE_HISTORY_BLOCKS.toString(16)}`, newest, [...READING_PERCENTILES]]);
  // Issued in the same tick, so a batching transport sends them as one JSON-RPC batch.
  const [rawHistory, block, blobFee] = await Promise.all([
    askFeeHistory('latest'),
    getBlock(client, { blockTag: 'latest' }),
    // An answer that is not a quantity (null, "0x") is a missing method in disguise: the blob fee then
    // comes from the fee history, and the rest of the reading stands.
    call('eth_blobBaseFee', []).then(
      (value): { value: bigint } | { failure: RpcFailureKind } =>
        isQuantity(value) ? { value: BigInt(value) } : { failure: 'malformed' },
      (error: unknown) => ({ failure: classifyRpcError(error).kind }),
    ),
  ]);
  if (typeof block?.number !== 'bigint' || typeof block.timestamp !== 'bigint') {
    throw new RpcAttemptError('malformed', 'latest block without number or timestamp');
  }
  let history = parseFeeHistory(rawHistory);
  const head = { number: block.number, timestamp: Number(block.timestamp) };
  if (head.number > computeMainnetBlockCeiling(head.timestamp)) {
    throw new RpcAttemptError('absurd', 'block number ahead of any mainnet block of its time');
  }
  // A fresh head numbered days behind mainnet's is another chain's (a testnet, a fork) that the
  // chain-id check, trusted for 10 minutes, has not caught yet.
  const floor = computeMainnetHeadFloor(head.timestamp * 1000);
  if (floor !== undefined && head.number < BigInt(floor)) {
    throw new RpcAttemptError('absurd', 'block number far behind any mainnet block of its time');
  }
  const first = getNewestBlock(history);
  const skew = head.number > first ? head.number - first : first - head.number;
  if (skew > MAX_HEAD_SKEW_BLOCKS) throw new RpcAttemptError('lag', 'fee history and head disagree');
  // The calls straddled a new block, or reached two backends of one load balancer: the fee history's
  // next base fee is then a block already mined. Asked again at the head, it is the head's.
  if (head.number > first) history = (await readFeeHistoryAt(askFeeHistory, head.number)) ?? history;
  const newest = getNewestBlock(history);
  const headAhead = head.number > newest;
  const fees = computeWalletFees(
    history,
    headAhead ? computeBaseFeeAfterHead(block, head, history) : undefined,
  );
  if (headAhead) {
    // The blob fees of the head and the block after it are not in this history, and without a fork
    // table they cannot be computed from the header: none are served rather than a block-old pair.
    return { fees, blob: null, blobMissing: 'lag', block: head };
  }
  const blobFeeWei = 'value' in blobFee ? blobFee.value : null;
  // The header checks only hold when the fee history and the block are the same newest block.
  const header =
    head.number === newest
      ? { blobGasUsed: block.blobGasUsed ?? undefined, excessBlobGas: block.excessBlobGas ?? undefined }
      : { blobGasUsed: undefined, excessBlobGas: undefined, sameBlock: false };
  const blob = readBlobFees(history, blobFeeWei, header);
  const blobMissing = blob === null ? ('failure' in blobFee ? blobFee.failure : 'absent') : undefined;
  // A fee history newer than the head is stamped a slot later per block, never fresher than its fees.
  const timestamp = head.timestamp - Number(head.number - newest) * SLOT_SECONDS;
  return { fees, blob, block: { number: newest, timestamp }, ...(blobMissing ? { blobMissing } : {}) };
}

/**
 * The fee history ending at block `number` (the head), or null when the provider cannot give it yet
 * (its fee-history backend is behind) or gives another.
 */
async function readFeeHistoryAt(
  askFeeHistory: (newest: string) => Promise<unknown>,
  number: bigint,
): Promise<FeeHistory | null> {
  try {
    const history = parseFeeHistory(await askFeeHistory(`0x${number.toString(16)}`));
    return getNewestBlock(history) === number ? history : null;
  } catch {
    return null;
  }
}

/**
 * The base fee of the block after a head that is one or two blocks ahead of the fee history (asked
 * again, the provider could not give it at the head), exact per EIP-1559 from the head's header: the
 * fee history's own next base fee is then a block already mined, and a max fee built on it would
 * cover fewer full blocks than documented. The head's base fee
 * must follow from the history (equal to its next base fee one block on, within one EIP-1559 step of
 * it two blocks on), or the two answers are not of one chain.
 */
function computeBaseFeeAfterHead(
  block: { baseFeePerGas?: bigint | null; gasUsed?: bigint; gasLimit?: bigint },
  head: { number: bigint },
  history: FeeHistory,
): bigint {
  const { baseFeePerGas, gasUsed, gasLimit } = block;
  if (typeof baseFeePerGas !== 'bigint' || typeof gasUsed !== 'bigint' || typeof gasLimit !== 'bigint') {
    throw new RpcAttemptError('malformed', 'latest block without base fee or gas');
  }
  if (gasLimit <= 0n || gasUsed > gasLimit)
    throw new RpcAttemptError('absurd', 'head uses more gas than its limit');
  const historyNext = history.baseFeePerGas[history.baseFeePerGas.length - 1] as bigint;
  const follows =
    head.number === getNewestBlock(history) + 1n
      ? baseFeePerGas === historyNext
      : baseFeePerGas <= computeMaxNextBaseFee(historyNext) && baseFeePerGas * 8n + 8n >= historyNext * 7n;
  if (!follows) throw new RpcAttemptError('lag', 'head base fee does not follow the fee history');
  return computeNextBaseFee(baseFeePerGas, gasUsed, gasLimit);
}
