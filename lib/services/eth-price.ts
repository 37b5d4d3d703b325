import { z } from 'zod';
import type { AppDeps } from '../deps';
import { LAST_GOOD_TIMEOUT_MS, readLastGood, writeLastGood } from '../store/last-good';
import { readPriceChain } from '../upstream/price-chain';
import {
  PRICE_SOURCES,
  type PriceFailureKind,
  type PriceSourceId,
  type PriceToken,
} from '../upstream/price-source';

/** A live reading is reused for this long (SPEC.md 4.3: the price refreshes every 30 seconds). */
export const PRICE_FRESH_MS = 30_000;
/** SPEC.md 7 and decision 3: a last-known-good price older than this is never served. */
export const LAST_GOOD_MAX_AGE_MS = 5 * 60_000;
/** A kept sparkline is served while it is at most one hourly point behind. */
export const SPARKLINE_MAX_AGE_MS = 60 * 60_000;
/**
 * The whole answer, sources and last-known-good store included, takes at most this long. The sources
 * share all of it but the last WRITE_RESERVE_MS, which is kept for saving a good reading.
 */
export const PRICE_DEADLINE_MS = 4_000;
const WRITE_RESERVE_MS = 500;

/** Every label of SPEC.md 2.7, as decision 3 defines them. */
export type PriceLabel =
  | PriceSourceId
  | 'cache'
  | 'stale-timeout'
  | 'stale-error'
  | 'stale-cooldown'
  | 'unavailable';

/** A token price as the endpoints serve it; `usd` is null only with `source: 'unavailable'`. */
export interface TokenPrice {
  token: PriceToken;
  usd: number | null;
  /** 24-hour change in percent. */
  change24h: number | null;
  sparkline7d: number[];
  /** When the value was read upstream (epoch ms); the time of the answer when there is no value. */
  updatedAt: number;
  priceSource: PriceSourceId | null;
  source: PriceLabel;
  /** Integer milliseconds since the value was read upstream; only on `stale-*` labels. */
  staleAgeMs?: number;
}

// What is cached in-process and kept in the last-known-good store; validated on every read, since the
// store is shared and may hold anything.
const PriceRecordSchema = z.object({
  usd: z.number().positive().finite(),
  change24h: z.number().finite().nullable(),
  priceSource: z.enum(PRICE_SOURCES),
  readAt: z.number().int().positive(),
  sparkline: z
    .object({ values: z.array(z.number().positive().finite()).max(400), readAt: z.number().int().positive() })
    .nullable(),
});
type PriceRecord = z.infer<typeof PriceRecordSchema>;

/** Carries why the live read failed, and the last-known-good value, to every coalesced caller. */
class PriceChainFailure extends Error {
  constructor(
    readonly kind: PriceFailureKind | 'cooldown',
    readonly lastGood: PriceRecord | null,
  ) {
    super(`price chain failed: ${kind}`);
  }
}

const recordKey = (token: PriceToken) => `price:${token}`;

/**
 * Returns the USD price of ETH or POL through the fallback chain (CoinGecko, Coinbase, Kraken), cached
 * 30 s per process with concurrent callers coalesced. It never throws: when every source fails it serves
 * the last-known-good value (at most 5 minutes old) with a `stale-*` label, else `usd: null`.
 */
export async function getTokenPrice(deps: AppDeps, token: PriceToken): Promise<TokenPrice> {
  const key = recordKey(token);
  const cached = deps.cache.peek<PriceRecord>(key);
  if (cached && deps.now() - cached.storedAt < PRICE_FRESH_MS)
    return fromRecord(deps, token, cached.value, 'cache');
  try {
    const record = await deps.cache.get(key, PRICE_FRESH_MS, () => loadLive(deps, token));
    return fromRecord(deps, token, record, record.priceSource);
  } catch (error) {
    const failure = error instanceof PriceChainFailure ? error : new PriceChainFailure('error', null);
    if (!(error instanceof PriceChainFailure))
      deps.log.error('price service failed', { error: String(error) });
    // The in-process copy is a last-known-good too, for when the shared store cannot be reached.
    const lastGood = newest(failure.lastGood, deps.cache.peek<PriceRecord>(key)?.value ?? null);
    const age = lastGood ? Math.max(0, deps.now() - lastGood.readAt) : Number.POSITIVE_INFINITY;
    if (!lastGood || age > LAST_GOOD_MAX_AGE_MS) {
      deps.log.warn('price unavailable', { token, failure: failure.kind });
      return unavailable(deps, token);
    }
    return { ...fromRecord(deps, token, lastGood, `stale-${failure.kind}`), staleAgeMs: Math.round(age) };
  }
}

/** Returns the ETH/USD price (see getTokenPrice). */
export function getEthPrice(deps: AppDeps): Promise<TokenPrice> {
  return getTokenPrice(deps, 'ETH');
}

/** One live read: the chain, the sparkline, and saving the result as the new last-known-good value. */
async function loadLive(deps: AppDeps, token: PriceToken): Promise<PriceRecord> {
  const deadlineAt = deps.now() + PRICE_DEADLINE_MS;
  const storeMs = storeTimeoutMs(deps);
  // Read alongside the chain, so a failed chain or a sparkline-less answer does not wait for it afterwards.
  const lastGood = readLastGood(deps, recordKey(token), PriceRecordSchema, storeMs).then(
    (hit) => hit?.value ?? null,
  );
  const outcome = await readPriceChain(deps, token, deadlineAt - WRITE_RESERVE_MS);
  if (!outcome.ok) throw new PriceChainFailure(outcome.kind, await lastGood);
  const { reading } = outcome;
  const sparkline = reading.sparkline7d
    ? { values: reading.sparkline7d, readAt: outcome.readAt }
    : (newest(await lastGood, deps.cache.peek<PriceRecord>(recordKey(token))?.value ?? null)?.sparkline ??
      null);
  const record: PriceRecord = {
    usd: reading.usd,
    change24h: reading.change24h,
    priceSource: outcome.source,
    readAt: outcome.readAt,
    sparkline,
  };
  const writeMs = Math.min(storeMs, deadlineAt - deps.now());
  if (writeMs > 0) await writeLastGood(deps, recordKey(token), record, record.readAt, writeMs);
  return record;
}

/** The store's time budget: an unreachable Redis must cost little of the answer's deadline. */
function storeTimeoutMs(deps: AppDeps): number {
  return Math.min(LAST_GOOD_TIMEOUT_MS, deps.config.upstreamTimeoutMs);
}

function newest(a: PriceRecord | null, b: PriceRecord | null): PriceRecord | null {
  if (!a) return b;
  if (!b) return a;
  return b.readAt > a.readAt ? b : a;
}

function fromRecord(deps: AppDeps, token: PriceToken, record: PriceRecord, source: PriceLabel): TokenPrice {
  const sparkline = record.sparkline;
  const sparklineFresh = sparkline !== null && deps.now() - sparkline.readAt <= SPARKLINE_MAX_AGE_MS;
  return {
    token,
    usd: record.usd,
    change24h: record.change24h,
    sparkline7d: sparklineFresh ? sparkline.values : [],
    updatedAt: record.readAt,
    priceSource: record.priceSource,
    source,
  };
}

function unavailable(deps: AppDeps, token: PriceToken): TokenPrice {
  const now = deps.now();
  return {
    token,
    usd: null,
    change24h: null,
    sparkline7d: [],
    updatedAt: now,
    priceSource: null,
    source: 'unavailable',
  };
}
