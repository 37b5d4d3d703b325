import { parseConfig } from '../../lib/config';
import type { AppDeps } from '../../lib/deps';
import { createCoalescingCache } from '../../lib/http/cache';
import { createLogger } from '../../lib/log';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';

/** Dependencies for an app under test, with every log line captured in `logs`. */
export interface TestDeps extends AppDeps {
  logs: string[];
}

/**
 * Builds app dependencies from an environment (for example the simulators' `env`), with an in-process
 * last-known-good store and no database unless `overrides.withDb` provides one.
 */
export function createTestDeps(env: Record<string, string> = {}, overrides: Partial<AppDeps> = {}): TestDeps {
  const logs: string[] = [];
  const now = overrides.now ?? Date.now;
  return {
    config: parseConfig(env),
    fetch: (input, init) => fetch(input, init),
    now,
    log: createLogger((line) => logs.push(line)),
    cache: createCoalescingCache({ now }),
    lastGood: createMemoryLastGoodStore(now),
    withDb: () => Promise.reject(new Error('no database in this test')),
    state: new Map(),
    ...overrides,
    logs,
  };
}

/**
 * A shared store that fails: every call throws, never answers, or reads back `garbage` (default: a
 * document that is no entry) while writes succeed.
 */
export function createFaultyStore(
  mode: 'throw' | 'hang' | 'garbage',
  garbage: unknown = '{"not":"an entry"}',
): LastGoodStore {
  const fail = <T>(): Promise<T> =>
    mode === 'hang' ? new Promise<T>(() => {}) : Promise.reject(new Error('store down'));
  if (mode === 'garbage') {
    return {
      scope: 'redis',
      get: async () => garbage,
      set: async () => ({ stored: true }),
      lease: async () => ({ taken: true, entry: garbage }),
      release: async () => {},
    };
  }
  return { scope: 'redis', get: fail, set: fail, lease: fail, release: fail };
}

/** Makes an instance forget every shared reading, in its own copy and in its (in-process) store. */
export function forgetReadings(deps: AppDeps): void {
  deps.state.delete('shared-read');
  deps.lastGood = createMemoryLastGoodStore(deps.now);
}
