import { MAX_FUTURE_SKEW_MS } from '../clock';
import { RpcAttemptError } from './rpc-errors';
import type { PoolHealth } from './rpc-health';

/** The newest block an answer reflects. */
export interface BlockStamp {
  blockNumber: bigint;
  /** Block timestamp in Unix seconds. */
  timestamp: number;
}

/** Limits on how old an answer may be. */
export interface FreshnessLimits {
  /** Reject an answer whose newest block is older than this (ms). */
  maxBlockAgeMs: number;
  /**
   * Reject an answer whose newest block is stamped more than this long (ms) before the best block
   * seen in the process. Timestamps, not numbers: a block number cannot be checked against the
   * clock, so one answer from a provider gone wrong (another chain, a head far ahead) would set a
   * best number no honest provider reaches, and every one would be turned away as lagging.
   */
  maxLagMs: number;
}

/**
 * The oldest a live reading's block may be (ms): a provider whose newest block is older is refused as
 * stale, and so is the explorer backstop when its block's own time shows it older (lib/services/explorer-gas.ts).
 */
export const MAX_BLOCK_AGE_MS = 60_000;

/** A remembered best block is forgotten after this long: one bogus answer cannot hold the pool longer. */
const BEST_BLOCK_MEMORY_MS = 10 * 60_000;

/**
 * Throws an RpcAttemptError (`stale`, `lag` or `absurd`) unless the block an answer reflects is recent
 * and not behind what other providers already served. A provider stuck on an old head would otherwise
 * serve yesterday's fees with full confidence.
 */
export function assertFresh(
  stamp: BlockStamp,
  health: PoolHealth,
  limits: FreshnessLimits,
  now: number,
): void {
  const blockMs = stamp.timestamp * 1000;
  if (!Number.isFinite(blockMs) || blockMs > now + MAX_FUTURE_SKEW_MS) {
    throw new RpcAttemptError('absurd', 'block timestamp in the future');
  }
  if (now - blockMs > limits.maxBlockAgeMs) throw new RpcAttemptError('stale', 'newest block too old');
  const best = health.bestBlock;
  if (best && now - best.seenAt <= BEST_BLOCK_MEMORY_MS && best.timestampMs - blockMs > limits.maxLagMs) {
    throw new RpcAttemptError('lag', 'behind the best block seen');
  }
}

/**
 * Remembers the block of an accepted answer as the best seen when it is newer (or the old one
 * expired). Its time is taken as no later than now: a block stamped in the future (within the
 * allowed skew) must not make every honest provider look behind.
 */
export function recordBestBlock(stamp: BlockStamp, health: PoolHealth, now: number): void {
  const best = health.bestBlock;
  const timestampMs = Math.min(stamp.timestamp * 1000, now);
  if (!best || timestampMs >= best.timestampMs || now - best.seenAt > BEST_BLOCK_MEMORY_MS) {
    health.bestBlock = { number: stamp.blockNumber, timestampMs, seenAt: now };
  }
}
