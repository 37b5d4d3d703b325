/** Tokens the price chain serves: ETH for the price endpoint, POL for Polygon's native token. */
export type PriceToken = 'ETH' | 'POL';

/** The three upstreams in fallback order (SPEC.md decision 4). */
export const PRICE_SOURCES = ['aggregator', 'exchange_a', 'exchange_b'] as const;
export type PriceSourceId = (typeof PRICE_SOURCES)[number];

/** How an upstream attempt failed: it ran out of time, or it answered with something unusable. */
export type PriceFailureKind = 'timeout' | 'error';

/** One validated reading from one upstream. */
export interface PriceReading {
  usd: number;
  /** 24-hour change in percent; null when the source does not give the data to compute it. */
  change24h: number | null;
  /** Hourly prices of the last 7 days, oldest first; only the aggregator gives them. */
  sparkline7d: number[] | null;
}

/** The market names of a token on each upstream. */
export interface TokenMarkets {
  coingeckoId: string;
  coinbasePair: string;
  krakenPair: string;
  /** Result keys Kraken may use for the pair: its legacy X/Z-prefixed name, then the plain one. */
  krakenKeys: string[];
  /** Prices outside this range are treated as a broken answer, not as a market move. */
  saneUsd: { min: number; max: number };
}

export const TOKEN_MARKETS: Readonly<Record<PriceToken, TokenMarkets>> = {
  ETH: {
    coingeckoId: 'ethereum',
    coinbasePair: 'ETH-USD',
    krakenPair: 'ETHUSD',
    krakenKeys: ['XETHZUSD', 'ETHUSD'],
    saneUsd: { min: 1, max: 1_000_000 },
  },
  POL: {
    coingeckoId: 'polygon-ecosystem-token',
    coinbasePair: 'POL-USD',
    krakenPair: 'POLUSD',
    krakenKeys: ['POLUSD', 'POLZUSD'],
    saneUsd: { min: 0.0001, max: 1_000 },
  },
};

/** A failed upstream attempt, thrown by the source clients and caught by the chain. */
export class PriceSourceError extends Error {
  override name = 'PriceSourceError';
  constructor(
    readonly kind: PriceFailureKind,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Reads a number that an upstream may send as a JSON number or as a decimal string. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

/** True when `usd` is a USD amount in the token's sane range (which excludes NaN and the infinities). */
export function isSaneUsd(usd: number, token: PriceToken): boolean {
  const { min, max } = TOKEN_MARKETS[token].saneUsd;
  return usd >= min && usd <= max;
}

/** Returns the price if it is a finite, positive USD amount in the token's sane range, else throws. */
export function checkUsd(value: unknown, token: PriceToken): number {
  const usd = toNumber(value);
  if (usd === undefined || !isSaneUsd(usd, token)) {
    throw new PriceSourceError('error', `price out of range for ${token}`);
  }
  return usd;
}

/**
 * Returns a 24-hour change if it is a finite percentage (a price cannot fall more than 100 %), else null:
 * a missing or broken change does not make a validated price unusable.
 */
export function checkChange(value: unknown): number | null {
  const pct = toNumber(value);
  if (pct === undefined || !Number.isFinite(pct) || pct < -100 || pct > 100_000) return null;
  return pct;
}

/** Computes the change in percent between a price 24 hours ago and now. */
export function computeChange(then: number, now: number): number | null {
  if (!(then > 0) || !Number.isFinite(then)) return null;
  return checkChange(((now - then) / then) * 100);
}

/**
 * The oldest a quote may be and still be served as read live (`aggregator`, `exchange_a`, `exchange_b`).
 * CoinGecko updates ETH about every minute and caches `/coins/markets` for up to a minute more, so a
 * `last_updated` older than this is a lagging feed, and so is an answer a cache held as long; the next
 * source is asked instead. The limit keeps a live quote young enough to be served through its cache
 * window (30 s, POL 60 s) and then as last-known-good for at least a minute more before it passes the
 * 5 minutes no price may exceed (SPEC.md 7, decision 3): a quote 4m50s old, still "live" by a 5-minute
 * limit, would be last-known-good for 10 s.
 */
export const MAX_READING_AGE_MS = 3 * 60_000;

/** A reading and the time its quote is from (epoch ms): earlier than when it was read, by its age. */
export interface PriceQuote extends PriceReading {
  quotedAt: number;
}
