import { fetchJsonAnswer, HttpJsonError, type JsonAnswer } from './http-json';
import { MAX_READING_AGE_MS, PriceSourceError } from './price-source';

/**
 * The longest a cache in front of a source may have held its answer: a quote older than this is not
 * "read live just now" (decision 3), as CoinGecko's own `last_updated` limit says for its quotes.
 */
const MAX_CACHED_S = MAX_READING_AGE_MS / 1000;

/**
 * GETs a price source's JSON body within `timeoutMs` (see `fetchJsonWithin`), with how long a cache
 * held it (`cachedS`, its `Age` header: the exchanges' bodies carry no time of their own, so their
 * quote is that much older than the answer), or throws a PriceSourceError saying whether it ran out
 * of time or failed otherwise (an answer a cache has held over MAX_READING_AGE_MS included).
 */
export async function fetchPriceJson(
  fetchFn: typeof fetch,
  url: string,
  timeoutMs: number,
): Promise<JsonAnswer> {
  try {
    return await fetchJsonAnswer(fetchFn, url, timeoutMs, { maxCachedS: MAX_CACHED_S });
  } catch (error) {
    if (!(error instanceof HttpJsonError)) throw error;
    throw new PriceSourceError(error.kind === 'timeout' ? 'timeout' : 'error', error.detail);
  }
}
