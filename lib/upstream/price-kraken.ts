import { z } from 'zod';
import { fetchPriceJson } from './price-http';
import {
  checkUsd,
  computeChange,
  type PriceQuote,
  PriceSourceError,
  type PriceToken,
  TOKEN_MARKETS,
  toNumber,
} from './price-source';

/** 5-minute candles: the price 24 hours ago is then known to within 5 minutes. */
const OHLC_INTERVAL_MIN = 5;
const DAY_S = 86_400;

const KrakenBody = z.object({
  error: z.array(z.string()),
  result: z.record(z.string(), z.unknown()).optional(),
});
const TickerEntry = z.looseObject({ c: z.array(z.unknown()).min(1) });
const Candle = z.array(z.unknown()).min(5);

/** The `/0/public/Ticker` request for one token. */
export function krakenTickerUrl(baseUrl: string, token: PriceToken): string {
  return `${baseUrl}/0/public/Ticker?pair=${TOKEN_MARKETS[token].krakenPair}`;
}

/** The `/0/public/OHLC` request covering the last 24 hours and a little more, in 5-minute candles. */
export function krakenOhlcUrl(baseUrl: string, token: PriceToken, nowMs: number): string {
  const since = Math.floor(nowMs / 1000) - DAY_S - 2 * OHLC_INTERVAL_MIN * 60;
  return `${baseUrl}/0/public/OHLC?pair=${TOKEN_MARKETS[token].krakenPair}&interval=${OHLC_INTERVAL_MIN}&since=${since}`;
}

/**
 * Kraken answers errors with HTTP 200 and a non-empty `error` list; returns the pair's result entry.
 * Its messages start with `E` (an error) or `W` (a warning beside a valid result, which stands).
 */
function pairResult(body: unknown, token: PriceToken, what: string): unknown {
  const parsed = KrakenBody.safeParse(body);
  if (!parsed.success) throw new PriceSourceError('error', `unexpected ${what} shape`);
  const error = parsed.data.error.find((message) => !message.startsWith('W'));
  if (error !== undefined) throw new PriceSourceError('error', `Kraken error ${upstreamText(error)}`);
  const result = parsed.data.result ?? {};
  // The result key is Kraken's own pair name (XETHZUSD for ETHUSD), not necessarily the one requested;
  // any other key is another market's answer and must not be read as this token's price.
  for (const key of TOKEN_MARKETS[token].krakenKeys) if (key in result) return result[key];
  throw new PriceSourceError('error', `no ${token} pair in ${what}`);
}

/** Parses a Kraken Ticker body: `c[0]` is the last trade price. */
export function parseKrakenTicker(body: unknown, token: PriceToken): number {
  const entry = TickerEntry.safeParse(pairResult(body, token, 'Ticker'));
  if (!entry.success) throw new PriceSourceError('error', 'unexpected Ticker entry');
  return checkUsd(entry.data.c[0], token);
}

/**
 * Finds the price 24 hours before `nowMs` in a Kraken OHLC body: the open of the candle that contains
 * that instant. The Ticker's own `o` is today's opening price (since 00:00 UTC), not 24 hours ago, so it
 * is not used for the change. Returns null when the body does not say.
 */
export function parseKrakenPrice24hAgo(body: unknown, token: PriceToken, nowMs: number): number | null {
  let entry: unknown;
  try {
    entry = pairResult(body, token, 'OHLC');
  } catch {
    return null;
  }
  const candles = z.array(Candle).safeParse(entry);
  if (!candles.success) return null;
  const target = Math.floor(nowMs / 1000) - DAY_S;
  const width = OHLC_INTERVAL_MIN * 60;
  for (const candle of candles.data) {
    const start = toNumber(candle[0]);
    if (start !== undefined && start <= target && target < start + width) {
      const open = toNumber(candle[1]);
      return open !== undefined && Number.isFinite(open) && open > 0 ? open : null;
    }
  }
  return null;
}

/**
 * Reads one token's price from Kraken (`exchange_b`) within `timeoutMs`. The 24 h change comes from the
 * OHLC candles fetched alongside; when they are missing or broken the change is null, the price stands.
 * The quote is from when the Ticker answer arrived, less the time a cache held it (its `Age`).
 */
export async function fetchKrakenPrice(
  fetchFn: typeof fetch,
  baseUrl: string,
  token: PriceToken,
  timeoutMs: number,
  now: () => number,
): Promise<PriceQuote> {
  const nowMs = now();
  const ohlc = fetchPriceJson(fetchFn, krakenOhlcUrl(baseUrl, token, nowMs), timeoutMs)
    .then(({ body }) => parseKrakenPrice24hAgo(body, token, nowMs))
    .catch(() => null);
  const ticker = await fetchPriceJson(fetchFn, krakenTickerUrl(baseUrl, token), timeoutMs);
  const quotedAt = now() - ticker.cachedS * 1000;
  const usd = parseKrakenTicker(ticker.body, token);
  const then = await ohlc;
  return { usd, change24h: then === null ? null : computeChange(then, usd), sparkline7d: null, quotedAt };
}

/**
 * An upstream's own error text as it may appear in a message that is logged: its first 100
 * characters, escaped as in JSON, so a long or multi-line text can neither flood nor forge log lines.
 */
function upstreamText(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text).slice(1, -1);
}
