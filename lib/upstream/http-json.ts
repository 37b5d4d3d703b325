/** Why a JSON GET failed, by kind only: never the URL, which may hold a key. */
export type HttpJsonFailure = 'timeout' | 'network' | 'http' | 'too-large' | 'malformed' | 'stale';

/** A failed JSON GET; `detail` is safe to log (an error code, a status, never a URL). */
export class HttpJsonError extends Error {
  override name = 'HttpJsonError';
  constructor(
    readonly kind: HttpJsonFailure,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Bodies larger than this are not a price or gas-oracle answer; reading on would only cost time and memory. */
export const MAX_JSON_BODY_BYTES = 2_000_000;

export interface FetchJsonOptions {
  /** Bodies over this many bytes are refused (default MAX_JSON_BODY_BYTES). */
  maxBytes?: number;
  /**
   * An answer a cache has held longer than this (its `Age` header, in seconds) is refused as `stale`:
   * for a source whose body carries no time of its own, the only sign that it is not current.
   */
  maxCachedS?: number;
}

/** A JSON answer and how long a cache in front of the upstream had held it (its `Age`, seconds; 0 without one). */
export interface JsonAnswer {
  body: unknown;
  cachedS: number;
}

/**
 * GETs a JSON body within `timeoutMs`, or throws an HttpJsonError saying why. The timer also guards
 * against a fetch that ignores its abort signal, so a hung upstream can never hold the caller past
 * the budget. The body is read as a stream and abandoned as soon as it passes `maxBytes` (or when
 * Content-Length already says it will), so an endless body costs at most that much memory.
 */
export async function fetchJsonWithin(
  fetchFn: typeof fetch,
  url: string,
  timeoutMs: number,
  options: FetchJsonOptions = {},
): Promise<unknown> {
  return (await fetchJsonAnswer(fetchFn, url, timeoutMs, options)).body;
}

/** As fetchJsonWithin, with the answer's `Age`: a cached answer's data is that much older than it looks. */
export async function fetchJsonAnswer(
  fetchFn: typeof fetch,
  url: string,
  timeoutMs: number,
  { maxBytes = MAX_JSON_BODY_BYTES, maxCachedS }: FetchJsonOptions = {},
): Promise<JsonAnswer> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new HttpJsonError('timeout', `no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const work = (async () => {
    let res: Response;
    try {
      res = await fetchFn(url, { signal: controller.signal, headers: { accept: 'application/json' } });
    } catch (error) {
      throw controller.signal.aborted
        ? new HttpJsonError('timeout', `no answer within ${timeoutMs} ms`)
        : new HttpJsonError('network', `request failed: ${describe(error)}`);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new HttpJsonError('http', `HTTP ${res.status}`);
    }
    const cachedS = ageSeconds(res.headers.get('age'));
    if (maxCachedS !== undefined && cachedS > maxCachedS) {
      await res.body?.cancel().catch(() => {});
      throw new HttpJsonError('stale', `answer held by a cache for ${Math.round(cachedS)} s`);
    }
    let text: string;
    try {
      text = await readCapped(res, maxBytes);
    } catch (error) {
      if (error instanceof HttpJsonError) throw error;
      throw controller.signal.aborted
        ? new HttpJsonError('timeout', `body not received within ${timeoutMs} ms`)
        : new HttpJsonError('network', `body read failed: ${describe(error)}`);
    }
    try {
      return { body: JSON.parse(text) as unknown, cachedS };
    } catch {
      throw new HttpJsonError('malformed', 'malformed JSON');
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

/**
 * An `Age` header in whole seconds: 0 when absent or not a non-negative number (RFC 9111 allows only
 * digits; a broken one says nothing about the answer), rounded down as the RFC's integers are.
 */
function ageSeconds(header: string | null): number {
  const seconds = Number(header ?? 0);
  return Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
}

/** Reads a body as UTF-8 text, giving up (and cancelling the stream) once it passes `maxBytes`. */
async function readCapped(res: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new HttpJsonError('too-large', `body over ${maxBytes} bytes`);
  if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** A short description of a network error without its URL (fetch errors may carry one in the cause). */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown error';
}
