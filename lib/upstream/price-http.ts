import { PriceSourceError } from './price-source';

/** Bodies larger than this are not a price answer; reading them would only waste the time budget. */
const MAX_BODY_CHARS = 2_000_000;

/**
 * GETs a JSON body within `timeoutMs`, or throws a PriceSourceError saying whether it ran out of time
 * or failed otherwise. The timer also guards against a fetch that ignores its abort signal, so a hung
 * upstream can never hold the caller past the budget.
 */
export async function fetchPriceJson(
  fetchFn: typeof fetch,
  url: string,
  timeoutMs: number,
): Promise<unknown> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new PriceSourceError('timeout', `no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const work = (async () => {
    let res: Response;
    try {
      res = await fetchFn(url, { signal: controller.signal, headers: { accept: 'application/json' } });
    } catch (error) {
      throw controller.signal.aborted
        ? new PriceSourceError('timeout', `no answer within ${timeoutMs} ms`)
        : new PriceSourceError('error', `request failed: ${describe(error)}`);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new PriceSourceError('error', `HTTP ${res.status}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      throw controller.signal.aborted
        ? new PriceSourceError('timeout', `body not received within ${timeoutMs} ms`)
        : new PriceSourceError('error', `body read failed: ${describe(error)}`);
    }
    if (text.length > MAX_BODY_CHARS) throw new PriceSourceError('error', 'body too large');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PriceSourceError('error', 'malformed JSON');
    }
  })();
  // The loser of the race must not surface as an unhandled rejection.
  work.catch(() => {});
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** A short description of a network error without its URL (fetch errors may carry one in the cause). */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown error';
}
