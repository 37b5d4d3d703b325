import { parseConfig } from '../../lib/config';
import type { AppDeps } from '../../lib/deps';
import { createCoalescingCache } from '../../lib/http/cache';
import { createLogger } from '../../lib/log';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';

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
    lastGood: createMemoryLastGoodStore(),
    withDb: () => Promise.reject(new Error('no database in this test')),
    state: new Map(),
    ...overrides,
    logs,
  };
}
