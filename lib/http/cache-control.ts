/** Refresh cadence in seconds per path (SPEC.md 4.3 and decision 12). */
export const CACHE_SECONDS: Readonly<Record<string, number>> = {
  '/api/dashboard': 30,
  '/api/gas-predictions': 30,
  '/api/gas-history': 30,
  '/api/eth-price': 30,
  '/api/l2-gas': 60,
  '/api/l2-gas-history': 15,
  '/api/gas': 30,
  // SPEC extension 18: scores change once an hour.
  '/api/forecast-accuracy': 300,
  '/openapi.json': 300,
};

// Formatted once: every cacheable answer looks its value up.
const CACHE_CONTROL = new Map(Object.entries(CACHE_SECONDS).map(([path, s]) => [path, publicCache(s)]));

/** Returns the Cache-Control value for a successful response on `path`, or undefined if it is not cached. */
export function cacheControlFor(path: string): string | undefined {
  return CACHE_CONTROL.get(path);
}

/** Formats a public cache lifetime for browsers and the edge alike. */
export function publicCache(seconds: number): string {
  return `public, max-age=${seconds}, s-maxage=${seconds}`;
}

/** Reads the s-maxage of a Cache-Control value (0 when absent), used to keep a response in the edge cache. */
export function sharedMaxAge(cacheControl: string | null): number {
  const match = cacheControl?.match(/s-maxage=(\d+)/);
  return match ? Number(match[1]) : 0;
}
