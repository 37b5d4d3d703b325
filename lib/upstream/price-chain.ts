import { stillWaiting } from '../clock';
import { type AppDeps, getState } from '../deps';
import { fetchCoinbasePrice } from './price-coinbase';
import { fetchCoinGeckoPrice } from './price-coingecko';
import { fetchKrakenPrice } from './price-kraken';
import {
  PRICE_SOURCES,
  type PriceFailureKind,
  type PriceQuote,
  type PriceReading,
  PriceSourceError,
  type PriceSourceId,
  type PriceToken,
} from './price-source';

/** A source that failed is not asked again for this long, doubling per consecutive failure up to the max. */
export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_MAX_MS = 60_000;

/** Below this, a source has no realistic chance to answer, so it is not asked. */
const MIN_ATTEMPT_MS = 50;

/**
 * What the chain got: a live reading, read at `readAt`, its quote from `quotedAt` (never later), or why
 * none: time ran out, errors, or every source backing off.
 */
export type ChainOutcome =
  | { ok: true; source: PriceSourceId; reading: PriceReading; readAt: number; quotedAt: number }
  | { ok: false; kind: PriceFailureKind | 'cooldown' };

type ChainDeps = Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state'>;

interface Health {
  failures: number;
  retryAt: number;
}

const READERS: Record<
  PriceSourceId,
  (deps: ChainDeps, token: PriceToken, timeoutMs: number) => Promise<PriceQuote>
> = {
  aggregator: (deps, token, ms) =>
    fetchCoinGeckoPrice(deps.fetch, deps.config.coingeckoUrl, token, ms, deps.now),
  exchange_a: (deps, token, ms) =>
    fetchCoinbasePrice(deps.fetch, deps.config.coinbaseUrl, token, ms, deps.now),
  exchange_b: (deps, token, ms) => fetchKrakenPrice(deps.fetch, deps.config.krakenUrl, token, ms, deps.now),
};

/**
 * Asks the sources in fallback order until one gives a valid reading, all within `deadlineAt`. Each
 * attempt gets UPSTREAM_TIMEOUT_MS or an equal share of the time left for the sources still to ask,
 * whichever is smaller, so a hung first source leaves the next ones time to answer. Sources that failed
 * recently are skipped (per-process back-off); when all are backing off, none is asked.
 */
export async function readPriceChain(
  deps: ChainDeps,
  token: PriceToken,
  deadlineAt: number,
): Promise<ChainOutcome> {
  const health = getState(deps, 'price-chain:health', () => new Map<string, Health>());
  const healthOf = (source: PriceSourceId) => {
    const key = `${token}:${source}`;
    let entry = health.get(key);
    if (!entry) {
      entry = { failures: 0, retryAt: 0 };
      health.set(key, entry);
    }
    return entry;
  };
  const now = deps.now();
  const eligible = PRICE_SOURCES.filter(
    (source) => !stillWaiting(healthOf(source).retryAt, now, BACKOFF_MAX_MS),
  );
  if (eligible.length === 0) return { ok: false, kind: 'cooldown' };

  let timedOut = false;
  for (const [index, source] of eligible.entries()) {
    const share = Math.floor((deadlineAt - deps.now()) / (eligible.length - index));
    const timeoutMs = Math.min(deps.config.upstreamTimeoutMs, share);
    if (timeoutMs < MIN_ATTEMPT_MS) {
      timedOut = true;
      break;
    }
    try {
      const { quotedAt, ...reading } = await READERS[source](deps, token, timeoutMs);
      Object.assign(healthOf(source), { failures: 0, retryAt: 0 });
      const readAt = deps.now();
      return { ok: true, source, reading, readAt, quotedAt: Math.min(readAt, quotedAt) };
    } catch (error) {
      const failure =
        error instanceof PriceSourceError
          ? error
          : new PriceSourceError('error', `unexpected: ${String(error)}`);
      if (failure.kind === 'timeout') timedOut = true;
      const entry = healthOf(source);
      entry.failures += 1;
      entry.retryAt = deps.now() + Math.min(BACKOFF_BASE_MS * 2 ** (entry.failures - 1), BACKOFF_MAX_MS);
      deps.log.warn('price source failed', { token, source, kind: failure.kind, reason: failure.reason });
    }
  }
  // A chain that lost time to a hung source is reported as a timeout even if another source errored.
  return { ok: false, kind: timedOut ? 'timeout' : 'error' };
}
