import { z } from 'zod';
import { MAX_FUTURE_SKEW_MS } from '../clock';
import { fetchPriceJson } from './price-http';
import {
  checkChange,
  checkUsd,
  isSaneUsd,
  MAX_READING_AGE_MS,
  type PriceQuote,
  PriceSourceError,
  type PriceToken,
  TOKEN_MARKETS,
} from './price-source';

/** SPEC.md 2.7: the sparkline has 168 hourly values. */
export const SPARKLINE_POINTS = 168;

// Only the fields the service uses; CoinGecko sends many more, and may send null for any of them.
const MarketsBody = z.array(
  z.looseObject({
    id: z.string(),
    current_price: z.unknown(),
    last_updated: z.string().nullish(),
    price_change_percentage_24h: z.unknown().optional(),
    price_change_percentage_24h_in_currency: z.unknown().optional(),
    sparkline_in_7d: z.looseObject({ price: z.array(z.unknown()) }).nullish(),
  }),
);

/** The `/coins/markets` request for one token, with its 24 h change and 7-day sparkline. */
export function coinGeckoMarketsUrl(baseUrl: string, token: PriceToken): string {
  const params = new URLSearchParams({
    vs_currency: 'usd',
    ids: TOKEN_MARKETS[token].coingeckoId,
    sparkline: 'true',
    price_change_percentage: '24h',
  });
  return `${baseUrl}/coins/markets?${params}`;
}

/**
 * Parses a CoinGecko `/coins/markets` body into a validated reading. The price must be sane and its
 * `last_updated` present and recent (relative to `nowMs`): a price whose age cannot be told is not
 * served as live. The quote is from `last_updated` (`nowMs` when that is ahead of this clock, within
 * the skew allowed). The 24 h change and the sparkline are kept only when valid, since a broken extra
 * should not discard a good price.
 */
export function parseCoinGeckoMarkets(body: unknown, token: PriceToken, nowMs: number): PriceQuote {
  const parsed = MarketsBody.safeParse(body);
  if (!parsed.success) throw new PriceSourceError('error', 'unexpected /coins/markets shape');
  const item = parsed.data.find((entry) => entry.id === TOKEN_MARKETS[token].coingeckoId);
  if (!item) throw new PriceSourceError('error', `no ${token} entry in /coins/markets`);
  const usd = checkUsd(item.current_price, token);
  const updated = item.last_updated ? Date.parse(item.last_updated) : Number.NaN;
  if (!Number.isFinite(updated)) throw new PriceSourceError('error', 'no valid last_updated');
  if (updated - nowMs > MAX_FUTURE_SKEW_MS) throw new PriceSourceError('error', 'last_updated in the future');
  if (nowMs - updated > MAX_READING_AGE_MS) {
    throw new PriceSourceError('error', `reading is ${Math.round((nowMs - updated) / 1000)} s old`);
  }
  const change24h =
    checkChange(item.price_change_percentage_24h) ??
    checkChange(item.price_change_percentage_24h_in_currency);
  const sparkline7d = checkSparkline(item.sparkline_in_7d?.price, token);
  return { usd, change24h, sparkline7d, quotedAt: Math.min(nowMs, updated) };
}

/**
 * Keeps the last 168 hourly values when every one is a sane price. CoinGecko sometimes sends one or two
 * values more or fewer than 168; a partial series is kept, an empty or broken one is dropped.
 */
export function checkSparkline(values: unknown[] | undefined, token: PriceToken): number[] | null {
  if (!values || values.length === 0) return null;
  const prices: number[] = [];
  for (const value of values.slice(-SPARKLINE_POINTS)) {
    if (typeof value !== 'number' || !isSaneUsd(value, token)) return null;
    prices.push(value);
  }
  return prices;
}

/** Reads one token's price from CoinGecko (`aggregator`) within `timeoutMs`. */
export async function fetchCoinGeckoPrice(
  fetchFn: typeof fetch,
  baseUrl: string,
  token: PriceToken,
  timeoutMs: number,
  now: () => number,
): Promise<PriceQuote> {
  // `last_updated` dates the quote whether or not a cache held the answer: its `Age` adds nothing.
  const { body } = await fetchPriceJson(fetchFn, coinGeckoMarketsUrl(baseUrl, token), timeoutMs);
  return parseCoinGeckoMarkets(body, token, now());
}
