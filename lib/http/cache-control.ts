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

/** Forecasts made for the hour under way: their points start at the next whole hour (SPEC decision 8). */
const HOURLY_PATHS = new Set(['/api/dashboard', '/api/gas-predictions']);
/** Live readings, never served more than 5 minutes after their data (SPEC decisions 3 and 7). */
const LIVE_PATHS = new Set([
  '/api/gas',
  '/api/eth-price',
  '/api/l2-gas',
  '/api/dashboard',
  '/api/gas-predictions',
]);
const LIVE_LIMIT_S = 300;
const HOUR_S = 3_600;

/**
 * How long a shared cache (the Worker's edge) may keep a 200 of `path`, in whole seconds: its
 * s-maxage, but a forecast never past the turn of the hour (it would then start at the hour under
 * way), and a live reading never past 5 minutes after its data's time (`Last-Modified`: a last good
 * reading near that limit must not outlive it at the edge). 0: do not keep it.
 */
export function edgeLifetime(
  path: string,
  cacheControl: string | null,
  lastModified: string | null,
  now: number,
): number {
  let seconds = sharedMaxAge(cacheControl);
  if (HOURLY_PATHS.has(path)) seconds = Math.min(seconds, HOUR_S - (Math.floor(now / 1000) % HOUR_S));
  const dataTime = lastModified === null ? Number.NaN : Date.parse(lastModified);
  if (LIVE_PATHS.has(path) && Number.isFinite(dataTime)) {
    seconds = Math.min(seconds, LIVE_LIMIT_S - Math.ceil((now - dataTime) / 1000));
  }
  return Math.max(0, seconds);
}
