import type { Config } from '../config';
import type { Logger } from '../log';
import { createMemoryLastGoodStore, type LastGoodStore } from './last-good';
import { createUpstashLastGoodStore } from './upstash-last-good';

/** A Redis call gets at most this long, so a sick Redis costs little of a request's time budget. */
const STORE_TIMEOUT_MAX_MS = 1_000;

/**
 * Picks the last-known-good store: Upstash Redis when UPSTASH_REDIS_REST_URL/_TOKEN are set (shared by every
 * Worker isolate and Node process), else an in-process store. Hosts call this once per process or isolate.
 */
export function createLastGoodStore(config: Config, log: Logger): LastGoodStore {
  if (!config.upstash) return createMemoryLastGoodStore();
  return createUpstashLastGoodStore({
    url: config.upstash.url,
    token: config.upstash.token,
    timeoutMs: Math.min(STORE_TIMEOUT_MAX_MS, config.upstreamTimeoutMs),
    log,
  });
}
