import { publicCache, sharedMaxAge } from './cache-control';

/** The response's own Cache-Control, kept on an edge copy whose lifetime is shortened. */
const OWN_CACHE_CONTROL = 'X-Own-Cache-Control';

/**
 * The copy an edge cache keeps for `seconds` (edgeLifetime): the Workers Cache API keeps a response
 * for its Cache-Control, so a shorter life is written there, and the response's own value kept beside
 * it for restoreOwnCacheControl to serve on a hit.
 */
export function edgeCopy(res: Response, seconds: number): Response {
  const copy = res.clone();
  const own = res.headers.get('Cache-Control');
  if (own === null || sharedMaxAge(own) <= seconds) return copy;
  const stored = new Response(copy.body, copy);
  stored.headers.set(OWN_CACHE_CONTROL, own);
  stored.headers.set('Cache-Control', publicCache(seconds));
  return stored;
}

/** Puts back, on a copy served from the edge, the Cache-Control its response was answered with. */
export function restoreOwnCacheControl(headers: Headers): void {
  const own = headers.get(OWN_CACHE_CONTROL);
  if (own === null) return;
  headers.set('Cache-Control', own);
  headers.delete(OWN_CACHE_CONTROL);
}
