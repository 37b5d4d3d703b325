import { z } from 'zod';
import { fetchPriceJson } from './price-http';
import {
  checkUsd,
  type PriceQuote,
  type PriceReading,
  PriceSourceError,
  type PriceToken,
  TOKEN_MARKETS,
} from './price-source';

const SpotBody = z.object({
  data: z.looseObject({ amount: z.unknown(), base: z.string(), currency: z.string() }),
});

/** The `/v2/prices/<PAIR>/spot` request for one token. */
export function coinbaseSpotUrl(baseUrl: string, token: PriceToken): string {
  return `${baseUrl}/v2/prices/${TOKEN_MARKETS[token].coinbasePair}/spot`;
}

/**
 * Parses a Coinbase spot-price body. The spot endpoint carries no earlier price, so the 24 h change is
 * null rather than a guess. A body for another pair (base or currency mismatch) is rejected.
 */
export function parseCoinbaseSpot(body: unknown, token: PriceToken): PriceReading {
  const parsed = SpotBody.safeParse(body);
  if (!parsed.success) throw new PriceSourceError('error', 'unexpected spot-price shape');
  const [base, currency] = TOKEN_MARKETS[token].coinbasePair.split('-');
  if (parsed.data.data.base !== base || parsed.data.data.currency !== currency) {
    throw new PriceSourceError('error', 'spot price for another pair');
  }
  return { usd: checkUsd(parsed.data.data.amount, token), change24h: null, sparkline7d: null };
}

/**
 * Reads one token's price from Coinbase (`exchange_a`) within `timeoutMs`; the quote is from when the
 * answer arrived, less the time a cache held it (its `Age`).
 */
export async function fetchCoinbasePrice(
  fetchFn: typeof fetch,
  baseUrl: string,
  token: PriceToken,
  timeoutMs: number,
  now: () => number,
): Promise<PriceQuote> {
  const { body, cachedS } = await fetchPriceJson(fetchFn, coinbaseSpotUrl(baseUrl, token), timeoutMs);
  return { ...parseCoinbaseSpot(body, token), quotedAt: now() - cachedS * 1000 };
}
