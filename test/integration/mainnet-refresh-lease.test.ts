// Mainnet gas's refresh under the fleet's lease (lib/services/current-gas.ts over
// lib/store/shared-read.ts), on a real PostgreSQL 15 whose history table is locked (a long migration,
// a VACUUM FULL): the base-fee rank waits on it. A refresh whose every RPC provider hangs and whose
// explorer is slow is over, shared and its lease let go before the lease runs out, so no other
// instance takes the lease and reads every upstream again meanwhile.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_GAS_LAST_GOOD_KEY, getCurrentGas } from '../../lib/services/current-gas';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { createTestDeps } from '../helpers/deps';
import { startUpstreams, type Upstreams } from '../upstreams';
import { type PostgresServer, startPostgres } from './helpers/postgres-server';

let up: Upstreams;
let pgs: PostgresServer;
let url: string;
let engine: DatabaseEngine;

beforeAll(async () => {
  [up, pgs] = await Promise.all([startUpstreams(), startPostgres()]);
  url = await pgs.createDatabase('lease');
  engine = await openDatabase({ kind: 'pg', url });
  await engine.migrate();
});
afterEach(async () => {
  await up.reset();
});
afterAll(async () => {
  await engine?.close();
  await Promise.all([up?.close(), pgs?.stop()]);
});

/** Resolves once `done` holds, looking every 5 ms (the test's own timeout bounds the wait). */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 5));
}

const rpcRequests = () => up.mainnet.reduce((sum, sim) => sum + sim.requests.total, 0);

describe('a mainnet refresh with every RPC provider hung, a slow explorer and the history table locked', () => {
  it('is shared and lets go of its lease before the lease runs out: a second instance reads nothing', async () => {
    await Promise.all(up.mainnet.map((sim) => sim.fault('hang')));
    await up.etherscan.fault('delay', { ms: 200 });
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE mainnet_snapshots IN ACCESS EXCLUSIVE MODE');
    try {
      // Two instances over one store, which reserves a Redis write's budget (1 s here) as the fleet's
      // does. A 1-s upstream budget (a 3-s lease: 2 × 1 s + 1 s) keeps the test short; the defaults'
      // 2.5 s (a 6-s lease) went the same way. Until 2026-11-28 the refresh took the providers' 1.35 s,
      // the explorer's oracle and block time (0.4 s) and the rank's 1.5 s: 3.25 s; now the rank is cut
      // at 2 s, and the write lands a second before the lease runs out.
      const lastGood: LastGoodStore = { ...createMemoryLastGoodStore(), scope: 'redis' };
      const env = { ...up.env, UPSTREAM_TIMEOUT_MS: '1000' };
      const holder = createTestDeps(env, { lastGood, withDb: engine.withDb });
      const other = createTestDeps(env, { lastGood, withDb: engine.withDb });
      const lease = `${CURRENT_GAS_LAST_GOOD_KEY}:lease`;
      const first = getCurrentGas(holder);
      await until(async () => (await lastGood.get(lease)) !== null);
      // The lease is gone: let go with the holder's write, or run out while it was still reading.
      await until(async () => (await lastGood.get(lease)) === null);
      const asked = rpcRequests();
      // The second instance finds the holder's reading; until 2026-11-28 it found the lease run out and
      // no entry, took the lease and asked the hung providers (and the explorer) again.
      const second = await getCurrentGas(other);
      expect(rpcRequests()).toBe(asked);
      expect(up.etherscan.requests.byMethod.gasoracle).toBe(1);
      const reading = await first;
      expect(reading).toMatchObject({ source: 'etherscan', baseFeePercentile7d: null });
      expect(second).toEqual(reading);
      expect(holder.logs.some((line) => line.includes('base fee rank unavailable'))).toBe(true);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
  });
});
