import { allSettled } from '../async';

/** One cached value with the time it was stored. */
export interface CacheEntry<T> {
  value: T;
  storedAt: number;
}

/** A per-process TTL cache that runs one load for all concurrent callers of the same key. */
export interface CoalescingCache {
  /**
   * Returns the value for `key` if younger than `ttlMs` (and not stored "after" now, by a clock set
   * back since), else loads it once however many callers wait.
   */
  get<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T>;
  /** Returns the stored entry for `key` whatever its age, without loading. */
  peek<T>(key: string): CacheEntry<T> | undefined;
  /** Forgets `key`. */
  delete(key: string): void;
  /** A number that changes whenever a value is stored or forgotten (an answer made before it may be out of date). */
  version(): number;
  /** Resolves once every load in flight now has settled (at once when none is), never rejecting. */
  settled(): Promise<void>;
}

/**
 * Creates a coalescing cache. A load that throws is not cached: every waiting caller gets the error
 * and the next call loads again. The oldest keys are evicted past `maxEntries`.
 */
export function createCoalescingCache(
  options: { now?: () => number; maxEntries?: number } = {},
): CoalescingCache {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1000;
  const entries = new Map<string, CacheEntry<unknown>>();
  const inFlight = new Map<string, Promise<unknown>>();
  let version = 0;

  const store = (key: string, value: unknown) => {
    version += 1;
    entries.delete(key);
    entries.set(key, { value, storedAt: now() });
    if (entries.size > maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
  };

  return {
    get<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
      const hit = entries.get(key);
      // A negative age means the clock was set back since the value was stored: its real age is
      // unknown, so it is loaded again rather than kept for as long as the clock was set back.
      const age = hit ? now() - hit.storedAt : -1;
      if (hit && age >= 0 && age < ttlMs) return Promise.resolve(hit.value as T);
      const pending = inFlight.get(key);
      if (pending) return pending as Promise<T>;
      const started = (async () => {
        try {
          const value = await load();
          store(key, value);
          return value;
        } finally {
          inFlight.delete(key);
        }
      })();
      inFlight.set(key, started);
      return started;
    },
    peek<T>(key: string) {
      return entries.get(key) as CacheEntry<T> | undefined;
    },
    delete(key: string) {
      version += 1;
      entries.delete(key);
    },
    version: () => version,
    settled: () => allSettled(inFlight.values()),
  };
}
