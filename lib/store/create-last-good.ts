import type { Config } from '../config';
import { createMemoryLastGoodStore, type LastGoodStore } from './last-good';
import { createUpstashLastGoodStore } from './upstash-last-good';

/** A Redis call gets at most this long, so a sick Redis costs little of a request's time budget. */
export const STORE_TIMEOUT_MAX_MS = 1_000;

/**
 * Picks the store of the shared read-through entries: Upstash Redis when UPSTASH_REDIS_REST_URL/_TOKEN
 * are set (one entry per data kind for every Worker isolate and Node process), else an in-process
 * store. Hosts call this once per process or isolate.
 */
export function createLastGoodStore(config: Config): LastGoodStore {
  if (!config.upstash) return createMemoryLastGoodStore();
  return createUpstashLastGoodStore({
    url: config.upstash.url,
    token: config.upstash.token,
    timeoutMs: Math.min(STORE_TIMEOUT_MAX_MS, config.upstreamTimeoutMs),
  });
}
