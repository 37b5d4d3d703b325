import { stillWaiting } from '../clock';
import type { RpcFailureKind } from './rpc-errors';

/** How long a provider's chain id, once checked, is trusted before it is asked again (10 minutes). */
export const CHAIN_RECHECK_MS = 10 * 60_000;

/** Consecutive failures after which a provider is put in cooldown. */
export const FAILURES_BEFORE_COOLDOWN = 2;
/** First cooldown; each further failure doubles it up to MAX_COOLDOWN_MS. */
export const BASE_COOLDOWN_MS = 10_000;
export const MAX_COOLDOWN_MS = 5 * 60_000;

/** What the process remembers about one provider. */
export interface ProviderHealth {
  consecutiveFailures: number;
  /** Epoch ms until which the provider is skipped; 0 when healthy. */
  cooldownUntil: number;
  /**
   * When the provider last answered `eth_chainId` with the expected chain (epoch ms; 0: not yet). It
   * is asked again after CHAIN_RECHECK_MS, so a provider whose URL comes to serve another chain is
   * dropped within minutes, not at the next restart.
   */
  chainVerifiedAt: number;
  /**
   * When the provider last answered a JSON-RPC batch with an error for the whole batch: it is asked
   * singly for CHAIN_RECHECK_MS, then with a batch again (a refusal may have been a passing fault).
   * Once set, its chain-id check is a request of its own for the life of the process: a refusal may
   * be a size limit (dRPC's free tier: 3 calls) that the reads fill and the chain id would tip over.
   */
  batchRefusedAt?: number;
  lastFailure?: RpcFailureKind;
}

/** Per-process health of every provider of one pool, and the best block any of them served. */
export interface PoolHealth {
  providers: Map<string, ProviderHealth>;
  /** The newest block accepted: its number, its time (ms, at most when it was seen) and when it was seen. */
  bestBlock: { number: bigint; timestampMs: number; seenAt: number } | null;
}

/** Creates empty pool health; stored once per process through `getState`. */
export function createPoolHealth(): PoolHealth {
  return { providers: new Map(), bestBlock: null };
}

/** Returns the health record of a provider (keyed by its URL, which never leaves the process). */
export function getProviderHealth(pool: PoolHealth, key: string): ProviderHealth {
  let health = pool.providers.get(key);
  if (!health) {
    health = { consecutiveFailures: 0, cooldownUntil: 0, chainVerifiedAt: 0 };
    pool.providers.set(key, health);
  }
  return health;
}

/** Marks a provider healthy again after a valid answer. */
export function recordSuccess(health: ProviderHealth): void {
  health.consecutiveFailures = 0;
  health.cooldownUntil = 0;
  health.lastFailure = undefined;
}

/**
 * Counts a failure; from the FAILURES_BEFORE_COOLDOWN-th in a row the provider cools down for an
 * exponentially growing time, so a dead provider costs nothing while live ones serve. A wrong chain
 * is a configuration fault, not a blip: it cools down for the maximum at once. A rate limit that says
 * when to come back (`Retry-After`, as `retryAfterMs`) cools down at once until then, at most the
 * maximum: asking sooner only spends the provider's limit again.
 */
export function recordFailure(
  health: ProviderHealth,
  kind: RpcFailureKind,
  now: number,
  retryAfterMs?: number,
): void {
  health.consecutiveFailures += 1;
  health.lastFailure = kind;
  if (kind === 'wrong-chain') {
    health.chainVerifiedAt = 0;
    health.cooldownUntil = now + MAX_COOLDOWN_MS;
    return;
  }
  const excess = health.consecutiveFailures - FAILURES_BEFORE_COOLDOWN;
  if (excess >= 0) health.cooldownUntil = now + Math.min(MAX_COOLDOWN_MS, BASE_COOLDOWN_MS * 2 ** excess);
  if (retryAfterMs !== undefined && retryAfterMs > 0) {
    health.cooldownUntil = Math.max(health.cooldownUntil, now + Math.min(retryAfterMs, MAX_COOLDOWN_MS));
  }
}

/**
 * Orders providers for one request: those not cooling down, in configured priority order. When all
 * are cooling down, the one whose cooldown ends first is still probed, so a recovered pool is noticed
 * and a request never gives up without asking anyone.
 */
export function orderCandidates<P extends { key: string }>(
  pool: PoolHealth,
  providers: readonly P[],
  now: number,
): P[] {
  const ready = readyProviders(pool, providers, now);
  if (ready.length > 0 || providers.length === 0) return ready;
  const soonest = bySoonestCooldownEnd(pool, providers)[0];
  return soonest ? [soonest] : [];
}

/** The providers not cooling down, in configured priority order. */
export function readyProviders<P extends { key: string }>(
  pool: PoolHealth,
  providers: readonly P[],
  now: number,
): P[] {
  return providers.filter(
    (p) => !stillWaiting(getProviderHealth(pool, p.key).cooldownUntil, now, MAX_COOLDOWN_MS),
  );
}

/**
 * The providers a request leaves out (cooling down), soonest cooldown end first: asked only once every
 * candidate has failed, so a provider that was merely slow is not left unasked while the others fail.
 * One on the wrong chain (a configuration fault, not a blip) or rate-limited (asking sooner only
 * spends its limit again) is not asked before its time.
 */
export function reserveCandidates<P extends { key: string }>(
  pool: PoolHealth,
  providers: readonly P[],
  candidates: readonly P[],
): P[] {
  const cooling = providers.filter((p) => {
    const { lastFailure } = getProviderHealth(pool, p.key);
    return !candidates.includes(p) && lastFailure !== 'wrong-chain' && lastFailure !== 'rate-limited';
  });
  return bySoonestCooldownEnd(pool, cooling);
}

function bySoonestCooldownEnd<P extends { key: string }>(pool: PoolHealth, providers: readonly P[]): P[] {
  return [...providers].sort(
    (a, b) => getProviderHealth(pool, a.key).cooldownUntil - getProviderHealth(pool, b.key).cooldownUntil,
  );
}
