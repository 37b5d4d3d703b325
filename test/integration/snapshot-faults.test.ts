import { connect, createServer, type Server, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSnapshotJob, SnapshotStoreError } from '../../cron/snapshot-job';
import type { Database } from '../../lib/store/database';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { expectNoLeaks, L2_NAMES, startUpstreams, type Upstreams } from '../upstreams';
import {
  clearHistory,
  countRows,
  ENGINE_KINDS,
  type EngineLab,
  queryRows,
  startEngineLab,
} from './helpers/history-engines';

const ALL_L2 = [...L2_NAMES].sort();
let clockMs = Date.now();
const now = () => clockMs;
let up: Upstreams;
let lab: EngineLab;
let pglite: DatabaseEngine;

beforeAll(async () => {
  [up, lab] = await Promise.all([startUpstreams({ now }), startEngineLab()]);
  pglite = await lab.open('pglite');
});
beforeEach(() => {
  // Early in a slot, so a test can take a second tick in the same slot.
  clockMs = slotStartOf(Date.now()) + 5_000;
});
afterEach(async () => {
  await up.reset();
  await pglite.withDb(clearHistory);
});
afterAll(async () => {
  await up?.close();
  await lab?.close();
});

function depsOn(withDb: DatabaseEngine['withDb']): TestDeps {
  return createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: '400' }, { now, withDb });
}

function expectNoSecrets(logs: string[]): void {
  expectNoLeaks(up, ...logs);
}

describe('snapshot job when upstreams fail', () => {
  it('skips the mainnet part when every mainnet provider and the explorer are down, and fills it at a later tick', async () => {
    await Promise.all([...up.mainnet.map((sim) => sim.fault('refuse')), up.etherscan.fault('refuse')]);
    const deps = depsOn(pglite.withDb);
    const result = await runSnapshotJob(deps, clockMs);
    expect(result.mainnet).toBe('skipped');
    expect([...result.l2].sort()).toEqual(ALL_L2);
    // What the Node host's second try of the slot is for.
    expect(result.missing).toEqual(['mainnet']);
    expect(
      deps.logs.some(
        (l) => l.includes('snapshot: mainnet part skipped') && l.includes('no upstream answered'),
      ),
    ).toBe(true);
    expect(await pglite.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(0);
    expectNoSecrets(deps.logs);

    await up.reset();
    clockMs += 60_000;
    const later = await runSnapshotJob(deps, clockMs);
    expect(later).toMatchObject({ slotStart: result.slotStart, mainnet: 'written', l2: [], missing: [] });
  });

  it('does not store a last good mainnet reading as a new snapshot', async () => {
    const deps = depsOn(pglite.withDb);
    expect((await runSnapshotJob(deps, clockMs)).mainnet).toBe('written');
    await Promise.all([...up.mainnet.map((sim) => sim.fault('refuse')), up.etherscan.fault('refuse')]);
    clockMs += SLOT_MS;
    const result = await runSnapshotJob(deps, clockMs);
    expect(result.mainnet).toBe('skipped');
    expect(deps.logs.some((l) => l.includes('only a last good reading'))).toBe(true);
    expect(await pglite.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(1);
  });

  it('skips an L2 network whose providers are all down, and writes it alone at a later tick', async () => {
    await Promise.all(up.l2.arbitrum.map((sim) => sim.fault('refuse')));
    const deps = depsOn(pglite.withDb);
    const result = await runSnapshotJob(deps, clockMs);
    expect(result.mainnet).toBe('written');
    expect([...result.l2].sort()).toEqual(ALL_L2.filter((n) => n !== 'arbitrum'));
    expect(result.missing).toEqual(['arbitrum']);
    expect(
      deps.logs.some(
        (l) => l.includes('snapshot: l2 networks skipped') && l.includes('"arbitrum":"unavailable"'),
      ),
    ).toBe(true);
    expectNoSecrets(deps.logs);

    await up.reset();
    clockMs += 60_000;
    const later = await runSnapshotJob(deps, clockMs);
    expect(later).toMatchObject({ mainnet: 'exists', l2: ['arbitrum'], missing: [] });
    expect(await pglite.withDb((db) => countRows(db, 'l2_snapshots'))).toBe(4);
  });

  it('skips every L2 network when no price source answers (its USD columns cannot be filled)', async () => {
    await Promise.all([up.coingecko.fault('refuse'), up.coinbase.fault('refuse'), up.kraken.fault('refuse')]);
    const deps = depsOn(pglite.withDb);
    const result = await runSnapshotJob(deps, clockMs);
    expect(result).toMatchObject({ mainnet: 'written', l2: [] });
    expect(deps.logs.some((l) => l.includes('"base":"no price"'))).toBe(true);
  });

  it('skips every L2 network while its price is a last good one, not storing old USD figures as new', async () => {
    const deps = depsOn(pglite.withDb);
    const first = await runSnapshotJob(deps, clockMs);
    expect([...first.l2].sort()).toEqual(ALL_L2);
    await Promise.all([up.coingecko.fault('refuse'), up.coinbase.fault('refuse'), up.kraken.fault('refuse')]);
    // Two slots later the gas prices are read live, but ETH and POL are served last good (stale-*).
    for (let step = 0; step < 2; step++) {
      clockMs += SLOT_MS;
      const result = await runSnapshotJob(deps, clockMs);
      expect(result).toMatchObject({ mainnet: 'written', l2: [] });
    }
    for (const network of ALL_L2) {
      expect(deps.logs.some((l) => l.includes(`"${network}":"only a last good price"`))).toBe(true);
    }
    // Only the first slot's rows, priced when the sources answered, are stored.
    const slots = await pglite.withDb((db) =>
      queryRows(db, sql`SELECT DISTINCT slot_start FROM l2_snapshots`),
    );
    expect(slots.map((row) => new Date(row.slot_start as Date).getTime())).toEqual([first.slotStart]);
    expect(await pglite.withDb((db) => countRows(db, 'l2_snapshots'))).toBe(ALL_L2.length);
  });
});

/** A TCP pass-through to the test's PostgreSQL that can refuse connections and cut open ones. */
async function startGate(targetPort: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(targetPort, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => {});
          socket.on('close', () => {
            sockets.delete(socket);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve((s.address() as { port: number }).port));
      server = s;
    });
  const port = await listen(0);
  return {
    port,
    down: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server?.close(() => resolve());
      }),
    up: () => listen(port).then(() => undefined),
  };
}

describe.each(['pg', 'neon'] as const)('snapshot job when the database (%s) is unreachable', (kind) => {
  it('logs the failure without the connection string, rejects, and the next run writes the slot', async () => {
    const gate = await startGate(lab.server.port);
    const name = `gate_${kind}`;
    await lab.server.createDatabase(name);
    const engine = await openDatabase({
      kind,
      url: `postgres://postgres:hunter2secret@127.0.0.1:${gate.port}/${name}`,
      connectTimeoutMs: 1_000,
    });
    try {
      await engine.migrate();
      const deps = depsOn(engine.withDb);
      await gate.down();
      await expect(runSnapshotJob(deps, clockMs)).rejects.toBeInstanceOf(SnapshotStoreError);
      expect(deps.logs.some((l) => l.includes('snapshot not stored; the next run retries'))).toBe(true);
      expect(deps.logs.join('\n')).not.toContain('hunter2secret');

      await gate.up();
      clockMs += 60_000;
      const result = await runSnapshotJob(deps, clockMs);
      expect(result.mainnet).toBe('written');
      expect(result.l2).toHaveLength(4);
    } finally {
      await engine.close();
      await gate.down();
    }
  });
});

/** Makes every L2 insert fail inside the database, after the mainnet row of the same run went in. */
async function breakL2Inserts(db: Database, broken: boolean): Promise<void> {
  if (!broken) {
    await db.execute(sql`DROP TRIGGER IF EXISTS l2_refuse ON l2_snapshots`);
    return;
  }
  await db.execute(
    sql.raw(`CREATE OR REPLACE FUNCTION l2_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'l2 insert refused by test'; END $$`),
  );
  await db.execute(
    sql`CREATE TRIGGER l2_refuse BEFORE INSERT ON l2_snapshots FOR EACH ROW EXECUTE FUNCTION l2_refuse()`,
  );
}

describe.each(ENGINE_KINDS)('snapshot job when a write fails mid-run (%s)', (kind) => {
  it('leaves nothing of the run behind, and the next run writes the whole slot', async () => {
    const engine = kind === 'pglite' ? pglite : await lab.open(kind);
    const deps = depsOn(engine.withDb);
    await engine.withDb((db) => breakL2Inserts(db, true));
    try {
      await expect(runSnapshotJob(deps, clockMs)).rejects.toThrow(/l2 insert refused by test/);
      expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(0);
      expect(await engine.withDb((db) => countRows(db, 'l2_snapshots'))).toBe(0);
    } finally {
      await engine.withDb((db) => breakL2Inserts(db, false));
    }
    clockMs += 60_000;
    const result = await runSnapshotJob(deps, clockMs);
    expect(result.mainnet).toBe('written');
    expect([...result.l2].sort()).toEqual(ALL_L2);
  });
});
