import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { cacheControlFor } from './cache-control';
import { markStamped, responseHeaderRecord } from './headers';

/** One rendered 200: the body it was built from, its JSON and every header it is served with. */
export interface RenderedJson {
  source: unknown;
  /**
   * The JSON as served: its text when it is all ASCII and at most 16 KiB (Node writes it with the
   * head in one piece; on the Node host /api/dashboard went from 0.72-0.76x to 0.89-0.97x of the
   * constant app's rate), else its UTF-8 bytes, written as they are (a larger text is copied into a
   * new buffer on every request: the 24-hour L2 history ran at 0.78x as text, 1.09x as bytes; and
   * a text holding any other character is encoded again: the 41 KB OpenAPI document fell to a third).
   */
  body: string | Uint8Array;
  etag: string;
  headers: Readonly<Record<string, string>>;
  notModifiedHeaders: Readonly<Record<string, string>>;
  /** The values the body was last built from (see renderedJson's `basis`). */
  basis?: readonly unknown[];
}

/** Rendered answers of one app, one per path and validated query (a bounded set: every query is an enum). */
export type RenderedJsonCache = Map<string, RenderedJson>;

export function createRenderedJsonCache(): RenderedJsonCache {
  return new Map();
}

/** Options of a cacheable JSON answer: the time of its data and, when it differs from the path's, its lifetime. */
export interface CachedJsonOptions {
  updatedAt?: Date | number | string;
  cacheControl?: string;
  basis?: readonly unknown[];
}

/**
 * Renders a cacheable GET's `body` as JSON under `key`, once per distinct body: while the services
 * hand back the same data (they cache it per refresh), every request gets the same bytes and headers
 * without serialising again (respondWith serves them). Carries a strong ETag, Last-Modified (the
 * data's time) and the path's Cache-Control; a matching If-None-Match gets a 304 with the same headers
 * and no body (SPEC ext 21). The one place a cached answer is made, in the app and on the Node host's
 * fast path alike.
 *
 * `body` may be a function: with `basis` (the values the body is made from, such as the service's
 * cached reading and the base address), it is not even built while those values are the same ones.
 */
export function renderedJson(
  cache: RenderedJsonCache,
  key: string,
  path: string,
  body: unknown,
  options: CachedJsonOptions,
): RenderedJson {
  const cacheControl = options.cacheControl ?? cacheControlFor(path) ?? 'no-store';
  let entry = cache.get(key);
  const fresh = entry?.headers['Cache-Control'] === cacheControl;
  if (!entry || !fresh || !options.basis || !sameBasis(entry.basis, options.basis)) {
    const value = typeof body === 'function' ? (body as () => unknown)() : body;
    if (!entry || !fresh || !sameJson(entry.source, value)) {
      entry = render(value, cacheControl, options.updatedAt);
    }
    entry.basis = options.basis;
    cache.set(key, entry);
  }
  return entry;
}

/** What a rendered answer sends: its status, every header, and its body (none for a 304). */
export interface RenderedAnswer {
  status: 200 | 304;
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array | null;
}

/** A rendered answer for a request: a 304 with its headers when `ifNoneMatch` matches its tag, else the 200. */
export function answerFor(entry: RenderedJson, ifNoneMatch: string | undefined | null): RenderedAnswer {
  return ifNoneMatch != null && etagMatches(ifNoneMatch, entry.etag)
    ? { status: 304, headers: entry.notModifiedHeaders, body: null }
    : { status: 200, headers: entry.headers, body: entry.body };
}

/** A rendered answer as a response (see answerFor). */
export function respondWith(entry: RenderedJson, ifNoneMatch: string | undefined | null): Response {
  const { status, headers, body } = answerFor(entry, ifNoneMatch);
  return markStamped(new Response(body, { status, headers }));
}

function sameBasis(a: readonly unknown[] | undefined, b: readonly unknown[]): boolean {
  return a !== undefined && a.length === b.length && a.every((value, i) => value === b[i]);
}

/** The path and the validated query: invalid queries never get here, and unknown parameters are dropped. */
export function cacheKeyOf(c: Context): string {
  const query = c.req.valid('query' as never) as Record<string, string> | undefined;
  return query ? `${c.req.path}?${new URLSearchParams(query)}` : c.req.path;
}

/** The largest body served as text (see RenderedJson's `body`). */
const MAX_TEXT_BODY = 16_384;

function render(
  source: unknown,
  cacheControl: string,
  updatedAt: CachedJsonOptions['updatedAt'],
): RenderedJson {
  const text = JSON.stringify(source);
  const bytes = new TextEncoder().encode(text);
  const etag = strongEtag(bytes);
  const caching: Record<string, string> = { 'Cache-Control': cacheControl, ETag: etag };
  if (updatedAt !== undefined) caching['Last-Modified'] = new Date(updatedAt).toUTCString();
  // Content-Length is one of the headers, so whoever writes them (Hono's Node adapter, or the Node
  // host writing an immediate answer on Node's own response) sends the same bytes.
  const length = String(bytes.length);
  return {
    source,
    body: bytes.length === text.length && bytes.length <= MAX_TEXT_BODY ? text : bytes,
    etag,
    headers: responseHeaderRecord({
      'Content-Type': 'application/json',
      'Content-Length': length,
      ...caching,
    }),
    notModifiedHeaders: responseHeaderRecord(caching),
  };
}

/**
 * A strong validator: the first 128 bits of the body's SHA-256, so equal bytes give equal tags on any
 * host. Hashed in the calling turn (node:crypto, also in the Worker under nodejs_compat): Web Crypto's
 * digest resolves on Node from the thread pool, so a render waited for the event loop's next turn, and
 * while a scheduled job held the thread (PGlite's queries run on it) requests waited for that job.
 */
export function strongEtag(bytes: Uint8Array): string {
  return `"${createHash('sha256').update(bytes).digest().subarray(0, 16).toString('base64url')}"`;
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/` is ignored, `*` matches any current tag. */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  // What a client sends back is most often the tag itself, as it was given.
  if (ifNoneMatch === etag) return true;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Whether two bodies serialise to the same JSON. Shared sub-objects (the services' cached values)
 * compare by identity at once; anything that is not a plain object or array compares as different
 * unless identical, so a doubt only costs one more rendering.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype) return false;
  if (Object.getPrototypeOf(b) !== Object.prototype) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const k = keysA[i] as string;
    if (k !== keysB[i] || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}
