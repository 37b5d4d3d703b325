import { fetchJsonWithin, HttpJsonError } from './http-json';
import { PriceSourceError } from './price-source';

/**
 * GETs a price source's JSON body within `timeoutMs` (see `fetchJsonWithin`), or throws a
 * PriceSourceError saying whether it ran out of time or failed otherwise.
 */
export async function fetchPriceJson(
  fetchFn: typeof fetch,
  url: string,
  timeoutMs: number,
): Promise<unknown> {
  try {
    return await fetchJsonWithin(fetchFn, url, timeoutMs);
  } catch (error) {
    if (!(error instanceof HttpJsonError)) throw error;
    throw new PriceSourceError(error.kind === 'timeout' ? 'timeout' : 'error', error.detail);
  }
}
