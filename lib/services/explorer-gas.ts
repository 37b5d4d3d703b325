import type { AppDeps } from '../deps';
import {
  EtherscanError,
  type EtherscanGasReading,
  readEtherscanBlockTime,
  readEtherscanGas,
} from '../upstream/etherscan';
import { SLOT_SECONDS } from '../upstream/rpc-mainnet-gas';
import { computeExplorerMinBlock, EXPLORER_MAX_LAG_BLOCKS, recallMainnetHead } from './mainnet-known-head';

/** Under this much of the budget left, the oracle or the block's time is not asked: the call could only time out. */
const MIN_BLOCK_CALL_MS = 100;

/**
 * The oldest the explorer's block may be, by its own time, when the oracle answers: the blocks it may
 * trail the chain (EXPLORER_MAX_LAG_BLOCKS, as the known head's check allows) plus the slot under way
 * (the head itself is 0-12 s old), 72 s. The RPC providers' 60 s would refuse an explorer 5 blocks
 * behind, which that check calls honest, at any moment after the head's slot began.
 */
export const EXPLORER_MAX_BLOCK_AGE_MS = (EXPLORER_MAX_LAG_BLOCKS + 1) * SLOT_SECONDS * 1000;

/** The explorer backstop's reading: the gas oracle's, when it was read, and its block's time. */
export interface ExplorerGasReading extends EtherscanGasReading {
  /** When the gas oracle answered (epoch ms). */
  readAt: number;
  /**
   * Its block's time (Unix seconds): the earlier of the block's own time, read from the explorer's
   * proxy, and the latest it can have (estimateExplorerBlockTime); the latter alone when the proxy
   * gives none.
   */
  blockTimestamp: number;
}

/**
 * The explorer's reading refused as stale by its block's own time (older than
 * EXPLORER_MAX_BLOCK_AGE_MS when the oracle answered): no live reading, but `reading` (dated by that
 * block) may still stand in as a last good one (SPEC.md decision 7; current-gas.ts decides).
 */
export class ExplorerBlockTooOld extends EtherscanError {
  constructor(readonly reading: ExplorerGasReading) {
    super('stale');
  }
}

type Deps = Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state' | 'lastGood'>;

/**
 * Reads the Etherscan backstop: the gas oracle, its LastBlock held to the known head (and the slots
 * since) or, with none, to the clock, then that block's own time from the explorer's proxy, both
 * within the one upstream budget the oracle alone had, and by `deadlineAt` (the refresh's: see
 * SharedKind.read) when that comes first. A block older than an honest explorer's may be
 * (EXPLORER_MAX_BLOCK_AGE_MS) makes the reading stale; a proxy that fails or answers what
 * cannot be trusted costs only the block's time (the estimate is kept, its kind logged).
 * @throws EtherscanError when the oracle fails (`timeout` without asking it, under 100 ms left), or
 * ExplorerBlockTooOld (an EtherscanError `stale`, carrying the reading) when the block's own time
 * shows it stale.
 */
export async function readExplorerGas(deps: Deps, deadlineAt: number): Promise<ExplorerGasReading> {
  // The providers took the refresh's whole time: neither the known head nor the oracle could answer.
  if (deadlineAt - deps.now() < MIN_BLOCK_CALL_MS) throw new EtherscanError('timeout');
  const known = await recallMainnetHead(deps, deadlineAt);
  const minBlock = computeExplorerMinBlock(known, deps.now());
  const endsAt = Math.min(deps.now() + deps.config.upstreamTimeoutMs, deadlineAt);
  const timeoutMs = endsAt - deps.now();
  // As for the block's time below: a call with less than this left could only time out.
  if (timeoutMs < MIN_BLOCK_CALL_MS) throw new EtherscanError('timeout');
  const reading = await readEtherscanGas(
    deps,
    minBlock === undefined ? { timeoutMs } : { minBlock, timeoutMs },
  );
  const readAt = deps.now();
  const latest = estimateExplorerBlockTime(known, reading.blockNumber, readAt);
  const own = await readOwnBlockTime(deps, reading.blockNumber, endsAt);
  // Its own time counts no later than the latest it can have (a node's clock ahead, within the skew allowed).
  const read = { ...reading, readAt, blockTimestamp: own === null ? latest : Math.min(own, latest) };
  if (own !== null && readAt - own * 1000 > EXPLORER_MAX_BLOCK_AGE_MS) throw new ExplorerBlockTooOld(read);
  return read;
}

/** The block's time from the explorer's proxy within what is left until `endsAt`; null (logged) when it gives none. */
async function readOwnBlockTime(deps: Deps, blockNumber: number, endsAt: number): Promise<number | null> {
  const timeoutMs = endsAt - deps.now();
  try {
    if (timeoutMs < MIN_BLOCK_CALL_MS) throw new EtherscanError('timeout');
    return await readEtherscanBlockTime(deps, blockNumber, { timeoutMs });
  } catch (error) {
    const kind =
      error instanceof EtherscanError ? error.kind : error instanceof Error ? error.name : 'unknown';
    deps.log.warn('etherscan block time unavailable; estimating it', { kind });
    return null;
  }
}

/**
 * The latest time (Unix seconds) the explorer's block can have: the read time, or, for a block behind
 * the known head, a slot per block before the time that head was seen (its own time was no later).
 */
function estimateExplorerBlockTime(
  known: { number: number; readAt: number } | null,
  blockNumber: number,
  nowMs: number,
): number {
  const behind = known && known.number > blockNumber ? known.number - blockNumber : 0;
  const latest = behind > 0 && known ? Math.min(nowMs, known.readAt - behind * SLOT_SECONDS * 1000) : nowMs;
  return Math.floor(latest / 1000);
}
