import { publicCache, sharedMaxAge } from './cache-control';

/** The response's own Cache-Control, kept on an edge copy whose lifetime is shortened. */
const OWN_CACHE_CONTROL = 'X-Own-Cache-Control';
/** When the app made the response an edge copy holds (epoch ms), for its `Age` on a hit. */
const STORED_AT = 'X-Edge-Stored-At';

/**
 * The copy an edge cache keeps for `seconds` (edgeLifetime), stamped with the time it is made (`now`,
 * right after the app answered): the Workers Cache API keeps a response for its Cache-Control, so a
 * shorter life is written there, and the response's own value kept beside it; serveEdgeCopy serves
 * both again on a hit.
 */
export function edgeCopy(res: Response, seconds: number, now: number = Date.now()): Response {
  const stored = new Response(res.clone().body, res);
  stored.headers.set(STORED_AT, String(now));
  const own = res.headers.get('Cache-Control');
  if (own === null || sharedMaxAge(own) <= seconds) return stored;
  stored.headers.set(OWN_CACHE_CONTROL, own);
  stored.headers.set('Cache-Control', publicCache(seconds));
  return stored;
}

/**
 * Prepares the headers of a copy served from the edge: the Cache-Control its response was answered
 * with, and `Age`, the whole seconds (counted up) since the app made it, so that a browser or another
 * cache downstream keeps it only for what is left of its max-age: never past max-age after the app
 * made it. Until 2026-11-28 an edge copy went out without `Age`, and a browser could keep a 30-s
 * answer up to about 60 s after it was made (the aged wallet fees count 30 s: aged-reading.ts).
 * A copy without the stamp (stored by an earlier release) is served without `Age`.
 */
export function serveEdgeCopy(headers: Headers, now: number): void {
  const own = headers.get(OWN_CACHE_CONTROL);
  if (own !== null) headers.set('Cache-Control', own);
  headers.delete(OWN_CACHE_CONTROL);
  const storedAt = Number(headers.get(STORED_AT) ?? Number.NaN);
  headers.delete(STORED_AT);
  if (Number.isFinite(storedAt)) headers.set('Age', String(Math.max(0, Math.ceil((now - storedAt) / 1000))));
}
