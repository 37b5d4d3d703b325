import type { MiddlewareHandler } from 'hono';
import { cacheControlFor } from './cache-control';

/** The informational limit headers of SPEC.md section 8; they describe the free tier and enforce nothing. */
export const INFO_HEADERS: Readonly<Record<string, string>> = {
  'X-API-Tier': 'free',
  'X-RateLimit-Limit': '1000',
  'X-RateLimit-Remaining': '1000',
  'X-RateLimit-Window': '1h',
};

/** Headers a browser may send (preflight answer). */
export const CORS_ALLOW_HEADERS = 'Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
// ETag is not a CORS-safelisted response header: without it here a page on another origin could not
// read the tag it would send back as If-None-Match (Last-Modified and Cache-Control are safelisted).
const CORS_EXPOSE_HEADERS = [
  ...Object.keys(INFO_HEADERS),
  'ETag',
  'Retry-After',
  'Allow',
  'Mcp-Session-Id',
].join(', ');

/** Marks responses built with every header already in place (cached JSON); the middleware leaves them alone. */
const STAMPED = Symbol('stamped');

/** Marks a response as carrying its final headers, so serving it never copies or re-stamps them. */
export function markStamped<R extends Response>(res: R): R {
  (res as R & { [STAMPED]?: true })[STAMPED] = true;
  return res;
}

/** A plain header record with CORS, the informational headers and `extra`: built once, served as is. */
export function responseHeaderRecord(extra: Record<string, string>): Readonly<Record<string, string>> {
  return Object.freeze({
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS,
    ...INFO_HEADERS,
    ...extra,
  });
}

/** Stamps every response, errors and 404s included, with CORS, the informational headers and Cache-Control. */
export function applyResponseHeaders(headers: Headers, method: string, path: string, status: number): void {
  headers.set('Access-Control-Allow-Origin', '*');
  headers.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
  for (const [name, value] of Object.entries(INFO_HEADERS)) headers.set(name, value);
  if (headers.has('Cache-Control')) return;
  const cacheControl = method === 'GET' && status === 200 ? cacheControlFor(path) : undefined;
  headers.set('Cache-Control', cacheControl ?? 'no-store');
}

/**
 * The headers of a 204 answer to OPTIONS: the methods offered (OPTIONS among them) as Allow and for
 * CORS, and the request headers a page may send (those it asked for, else the ones the API reads).
 */
export function optionsHeaders(
  methods: readonly string[],
  requestedHeaders: string | undefined,
): Record<string, string> {
  const allow = [...new Set([...methods, 'OPTIONS'])].join(', ');
  return {
    Allow: allow,
    'Access-Control-Allow-Methods': allow,
    'Access-Control-Allow-Headers': requestedHeaders ?? CORS_ALLOW_HEADERS,
    'Access-Control-Max-Age': '86400',
  };
}

/**
 * Middleware form of applyResponseHeaders, plus the CORS preflight: 204 with the methods the path
 * answers (`methodsOf`, OPTIONS added) as Access-Control-Allow-Methods and Allow; an unknown path
 * goes on to the app's 404.
 */
export function responseHeaders(methodsOf: (path: string) => string[]): MiddlewareHandler {
  return async (c, next) => {
    const methods = c.req.method === 'OPTIONS' ? methodsOf(c.req.path) : [];
    if (methods.length > 0) {
      const res = new Response(null, {
        status: 204,
        headers: optionsHeaders(methods, c.req.header('Access-Control-Request-Headers')),
      });
      applyResponseHeaders(res.headers, 'OPTIONS', c.req.path, 204);
      return res;
    }
    await next();
    if ((c.res as Response & { [STAMPED]?: true })[STAMPED]) return;
    // A response built elsewhere may have immutable headers; copy it once so they can be stamped.
    let res = c.res;
    try {
      applyResponseHeaders(res.headers, c.req.method, c.req.path, res.status);
    } catch {
      res = new Response(res.body, res);
      applyResponseHeaders(res.headers, c.req.method, c.req.path, res.status);
      c.res = res;
    }
  };
}
