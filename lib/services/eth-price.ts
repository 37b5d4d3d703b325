import { z } from 'zod';
import { type AppDeps, getState } from '../deps';
import { readThrough, type SharedKind, secondsUntilRetry } from '../store/shared-read';
import { readPriceChain } from '../upstream/price-chain';
import {
  isSaneUsd,
  PRICE_SOURCES,
  type PriceFailureKind,
  type PriceSourceId,
  type PriceToken,
} from '../upstream/price-source';

/** A live reading is reused for this long (SPEC.md 4.3: the price refreshes every 30 seconds). */
export const PRICE_FRESH_MS = 30_000;
/**
 * POL is served only inside the L2 answer, which refreshes every 60 s (SPEC.md 4.3): at a 30 s cadence
 * its entry would always be past due when that answer is rebuilt, and the fleet would wait on it.
 */
export const POL_FRESH_MS = 60_000;
/** SPEC.md 7 and decision 3: a price whose quote is older than this is never served. */
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
  /**
   * When the quote is from (epoch ms): CoinGecko's `last_updated`, an exchange answer's arrival less
   * the time a cache held it. With no value, when the last refresh failed (see `unavailable`).
   */
  updatedAt: number;
  priceSource: PriceSourceId | null;
  source: PriceLabel;
  /** Integer milliseconds since `updatedAt`, the quote's own time; only on `stale-*` labels. */
  staleAgeMs?: number;
  /**
   * Only with `unavailable`, when a failure is on record: when this instance next asks for a refresh
   * (epoch ms; the fleet's back-off, see SharedReading). Not served: priceRetryAfterSeconds tells it.
   */
  retryAt?: number;
}

// What the shared entry holds; validated on every read, since the store is shared and may hold anything.
// Two times: `readAt`, when the source answered (the refresh cadence and the `cache` label run on it),
// and `quotedAt`, when its quote is from (served as `updatedAt`; `staleAgeMs` and the 5-minute limit
// count from it).
const PriceRecordSchema = z.object({
  usd: z.number().positive().finite(),
  change24h: z.number().finite().nullable(),
  priceSource: z.enum(PRICE_SOURCES),
  readAt: z.number().int().positive(),
  quotedAt: z.number().int().positive(),
  sparkline: z
    .object({ values: z.array(z.number().positive().finite()).max(400), readAt: z.number().int().positive() })
    .nullable(),
});
type PriceRecord = z.infer<typeof PriceRecordSchema>;

/** The record schema for one token: its price and sparkline within the token's sane range as well. */
function priceRecordSchemaOf(token: PriceToken) {
  const sane = (usd: number) => isSaneUsd(usd, token);
  return PriceRecordSchema.refine(
    (record) => sane(record.usd) && (record.sparkline?.values.every(sane) ?? true),
    `price outside the sane ${token}/USD range`,
  );
}

/** Carries why the live read failed to the shared entry (and so to every instance). */
class PriceChainFailure extends Error {
  constructor(readonly kind: PriceFailureKind | 'cooldown') {
    super(`price chain failed: ${kind}`);
  }
}

const STALE_KINDS = ['timeout', 'error', 'cooldown'] as const;

/**
 * Returns the USD price of ETH or POL through the fallback chain (CoinGecko, Coinbase, Kraken), read
 * through the shared entry (lib/store/shared-read.ts): one read per 30 s for the fleet while Redis is
 * up, one per instance when it is not. It never throws: when the last refresh failed it serves the
 * last-known-good value (its quote at most 5 minutes old) with a `stale-*` label, else `usd: null`.
 */
export async function getTokenPrice(deps: AppDeps, token: PriceToken): Promise<TokenPrice> {
  const startedAt = deps.now();
  const shared = await readThrough(deps, priceKind(deps, token, startedAt + PRICE_DEADLINE_MS), {
    deadlineAt: startedAt + PRICE_DEADLINE_MS,
  });
  const record = shared.value;
  const now = deps.now();
  // The quote's age bounds what is served; the time since the source answered, how it is labelled.
  const quoteAge = record ? Math.max(0, now - quotedAtOf(record)) : Number.POSITIVE_INFINITY;
  if (!record || quoteAge > LAST_GOOD_MAX_AGE_MS) {
    if (shared.failure?.attempted)
      deps.log.warn('price unavailable', { token, failure: shared.failure.kind });
    // Never after this instance took the entry: a failure is on the clock of the instance that tried,
    // which may run ahead (a peer up to the entry's clock bound, this host's clock stepped back).
    return unavailable(
      deps,
      token,
      Math.min(shared.failure?.failedAt ?? shared.heldAt, shared.heldAt),
      shared.failure?.retryAt,
    );
  }
  if (now - record.readAt < freshMsOf(token)) {
    return fromRecord(deps, token, record, shared.readNow && !shared.failure ? record.priceSource : 'cache');
  }
  // The instance that tried says how it failed, and so does one that waited for the lease holder's try
  // (until 2026-11-28 that one said `cooldown`); the others were served at once during the shared
  // back-off. No failure on record: the holder was still reading when a wait for it ran out.
  const failure = shared.failure;
  const failed = !failure ? 'timeout' : failure.attempted || failure.waited ? failure.kind : 'cooldown';
  const kind = STALE_KINDS.find((k) => k === failed) ?? 'error';
  return { ...fromRecord(deps, token, record, `stale-${kind}`), staleAgeMs: Math.round(quoteAge) };
}

/** When a record's quote is from: never after the source answered. */
const quotedAtOf = (record: PriceRecord) => Math.min(record.readAt, record.quotedAt);

const freshMsOf = (token: PriceToken) => (token === 'POL' ? POL_FRESH_MS : PRICE_FRESH_MS);

/** Returns the ETH/USD price (see getTokenPrice). */
export function getEthPrice(deps: AppDeps): Promise<TokenPrice> {
  return getTokenPrice(deps, 'ETH');
}

/**
 * A token's price as a shared data kind: the chain within the request's deadline (less the write's
 * reserve) and the refresh's (SharedKind.read), whichever comes first, keeping the last sparkline.
 */
function priceKind(deps: AppDeps, token: PriceToken, deadlineAt: number): SharedKind<PriceRecord> {
  return {
    // v2 since records carry their quote's time (2026-11-28): a release before it rewrote a record
    // without that time on every failed refresh, and the fleet then dated the price by its read.
    key: `price:v2:${token}`,
    schema: priceRecordSchemaOf(token),
    freshMs: freshMsOf(token),
    failureKind: (error) => (error instanceof PriceChainFailure ? error.kind : 'error'),
    async read(previous, readBy) {
      const outcome = await readPriceChain(deps, token, Math.min(deadlineAt - WRITE_RESERVE_MS, readBy));
      if (!outcome.ok) throw new PriceChainFailure(outcome.kind);
      const { reading } = outcome;
      const sparkline = reading.sparkline7d
        ? { values: reading.sparkline7d, readAt: outcome.readAt }
        : (previous?.sparkline ?? null);
      const record: PriceRecord = {
        usd: reading.usd,
        change24h: reading.change24h,
        priceSource: outcome.source,
        readAt: outcome.readAt,
        quotedAt: outcome.quotedAt,
        sparkline,
      };
      return { value: record, readAt: record.readAt };
    },
  };
}

/**
 * The price served from a record: the same object while the record, its label and the sparkline's
 * freshness are the same, so the endpoints see an unchanged value and serve their rendered bytes.
 */
function fromRecord(deps: AppDeps, token: PriceToken, record: PriceRecord, source: PriceLabel): TokenPrice {
  const sparkline = record.sparkline;
  const sparklineFresh = sparkline !== null && deps.now() - sparkline.readAt <= SPARKLINE_MAX_AGE_MS;
  const last = getState(deps, `price-served:${token}`, () => ({
    record: null as PriceRecord | null,
    source: null as PriceLabel | null,
    sparklineFresh: false,
    price: null as TokenPrice | null,
  }));
  if (
    last.price &&
    last.record === record &&
    last.source === source &&
    last.sparklineFresh === sparklineFresh
  )
    return last.price;
  const price: TokenPrice = {
    token,
    usd: record.usd,
    change24h: record.change24h,
    sparkline7d: sparklineFresh ? sparkline.values : [],
    updatedAt: quotedAtOf(record),
    priceSource: record.priceSource,
    source,
  };
  Object.assign(last, { record, source, sparklineFresh, price });
  return price;
}

/**
 * No price: dated by what the service last did to get one, `at`, which is when the fleet's last
 * refresh failed (the entry's failure), or, with no failure on record (a wait for the lease holder
 * that ran out), when this instance last looked at the entry. So the answer, its ETag and
 * Last-Modified stay the same through a back-off, and move with the next failed attempt. Until
 * 2026-11-28 it was dated by the request, so every answer of an outage was a new one. The same object
 * while `at` and `retryAt` (the failure's, when there is one) are the same, as fromRecord's.
 */
function unavailable(deps: AppDeps, token: PriceToken, at: number, retryAt: number | undefined): TokenPrice {
  const last = getState(deps, `price-unavailable:${token}`, () => ({ price: null as TokenPrice | null }));
  if (last.price?.updatedAt === at && last.price.retryAt === retryAt) return last.price;
  last.price = {
    token,
    usd: null,
    change24h: null,
    sparkline7d: [],
    updatedAt: at,
    priceSource: null,
    source: 'unavailable',
    ...(retryAt === undefined ? {} : { retryAt }),
  };
  return last.price;
}

/**
 * How long a caller told there is no price should wait before asking again, in whole seconds: until
 * the failed refresh is tried again (secondsUntilRetry), or, with no failure on record to say when
 * that is, about one refresh cadence (30 s). Until 2026-11-28 it was always 30.
 */
export function priceRetryAfterSeconds(price: TokenPrice, now: number): number {
  return price.retryAt === undefined ? PRICE_FRESH_MS / 1000 : secondsUntilRetry(price.retryAt, now);
}
