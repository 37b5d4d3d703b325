import type { Config } from './config';
import type { CoalescingCache } from './http/cache';
import type { Logger } from './log';
import type { WithDb } from './store/database';
import type { LastGoodStore } from './store/last-good';
import type { WebAssets } from './web/assets';

/**
 * Everything the app needs from its host. Both hosts build one of these and pass it down; services
 * take it (or the parts they need) as an argument and never read globals.
 */
export interface AppDeps {
  config: Config;
  /** The fetch used for every upstream call (the host's, or a test's). */
  fetch: typeof fetch;
  /** Clock in epoch milliseconds. */
  now: () => number;
  log: Logger;
  /** Per-process TTL cache with in-flight coalescing, in front of every upstream read. */
  cache: CoalescingCache;
  /** Shared read-through entries, also the last-known-good values (Upstash Redis, or in-process). */
  lastGood: LastGoodStore;
  /** Opens the history database for one unit of work. */
  withDb: WithDb;
  /** Per-process mutable state of upstream clients (provider health, chain-id checks), keyed by owner. */
  state: Map<string, unknown>;
  /** The pages and their assets (`/`, `/docs`, `/assets/*`); without it those paths answer 404. */
  web?: WebAssets;
}

/** Returns the per-process state stored under `key`, creating it with `init` on first use. */
export function getState<T>(deps: Pick<AppDeps, 'state'>, key: string, init: () => T): T {
  let value = deps.state.get(key) as T | undefined;
  if (value === undefined) {
    value = init();
    deps.state.set(key, value);
  }
  return value;
}
