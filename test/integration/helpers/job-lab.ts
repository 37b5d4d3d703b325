import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AppDeps } from '../../../lib/deps';
import type { DatabaseEngine } from '../../../lib/store/engines';
import { createTestDeps, type TestDeps } from '../../helpers/deps';
import { startUpstreams, type Upstreams } from '../../upstreams';
import { ENGINE_KINDS, type EngineKind, type EngineLab, startEngineLab } from './history-engines';

/** What a scheduled job's tests share: one clock, the simulators and an engine of every kind. */
export interface JobLab {
  /** The clock the simulators and the app both read; a test moves it by setting `ms`. */
  clock: { ms: number };
  now: () => number;
  /** The simulated upstreams (set once the file's `beforeAll` has run). */
  readonly up: Upstreams;
  engine(kind: EngineKind): DatabaseEngine;
  /** Deps on `engine` reading the simulators, with an ample upstream budget (no simulator here hangs). */
  depsOn(engine: DatabaseEngine, overrides?: Partial<AppDeps>): TestDeps;
}

/**
 * Registers the hooks a scheduled job's test file needs: simulators and engines started once,
 * simulators reset and the clock set back to now after each test, all closed at the end. One
 * clock serves simulators and app, so chain heads and freshness checks agree when a test moves it.
 */
export function useJobLab(): JobLab {
  const clock = { ms: Date.now() };
  const now = () => clock.ms;
  let up: Upstreams | undefined;
  let lab: EngineLab | undefined;
  const engines = new Map<EngineKind, DatabaseEngine>();
  beforeAll(async () => {
    [up, lab] = await Promise.all([startUpstreams({ now }), startEngineLab()]);
    for (const kind of ENGINE_KINDS) engines.set(kind, await lab.open(kind));
  });
  afterEach(async () => {
    await up?.reset();
    clock.ms = Date.now();
  });
  afterAll(async () => {
    await up?.close();
    await lab?.close();
  });
  const upstreams = () => {
    if (!up) throw new Error('the job lab is used before its beforeAll ran');
    return up;
  };
  return {
    clock,
    now,
    get up() {
      return upstreams();
    },
    engine: (kind) => {
      const engine = engines.get(kind);
      if (!engine) throw new Error(`no ${kind} engine opened`);
      return engine;
    },
    depsOn: (engine, overrides = {}) =>
      createTestDeps(
        { ...upstreams().env, UPSTREAM_TIMEOUT_MS: '10000' },
        { now, withDb: engine.withDb, ...overrides },
      ),
  };
}
