import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import { openDatabase } from '../../lib/store/engines';
import { seedRealHistory } from '../helpers/seed-history';
import { startUpstreams, type Upstreams } from '../upstreams';
import { queryRows } from './helpers/history-engines';
import { type PostgresServer, startPostgres } from './helpers/postgres-server';

// A PostgreSQL 15 server that stops answering with connections open (SIGSTOP: a hung host, a network
// that drops packets without a reset). A read on a pooled connection then waits for a reply that never
// comes, and a new connection for a handshake that never comes; the requests must still be answered as
// SPEC decision 7 says, by the request's deadline or the pool's query timeout, whichever comes first.

let up: Upstreams;
let pgs: PostgresServer;
let url: string;
const hosts: NodeHost[] = [];

beforeAll(async () => {
  [up, pgs] = await Promise.all([startUpstreams(), startPostgres()]);
  url = await pgs.createDatabase('frozen');
  // Eight days stored: with the store answering, /api/gas ranks its base fee and the forecast learns
  // from the history, so a null rank and the built-in profile below come from the frozen store alone.
  const engine = await openDatabase({ kind: 'pg', url });
  await engine.migrate();
  await seedRealHistory(engine, Date.now(), { days: 8 });
  await engine.close();
});
afterAll(async () => {
  pgs?.signal('SIGCONT');
  await Promise.all(hosts.map((host) => host.close()));
  await Promise.all([up?.close(), pgs?.stop()]);
});

/** Starts a Node host on the database, its log lines kept in `lines`. */
async function startHost(lines: string[]) {
  const host = await startNodeHost(
    { ...up.env, PORT: '0', DATABASE_URL: url },
    { scheduler: false, log: createLogger((line) => lines.push(line)) },
  );
  hosts.push(host);
  // A request with no answer fails the test instead of hanging it.
  return async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${host.port}${path}`, { signal: AbortSignal.timeout(25_000) });
    return { res, body: (await res.json()) as Record<string, unknown> };
  };
}

describe('a store that stops answering (real PostgreSQL 15, frozen)', () => {
  it('answers history with 503, and gas and forecasts without the store, then recovers', async () => {
    const lines: string[] = [];
    const get = await startHost(lines);
    // Pooled connections: the next reads reuse them.
    const warm = await Promise.all(['1d', '7d'].map((range) => get(`/api/gas-history?range=${range}`)));
    expect(warm.map(({ res }) => res.status)).toEqual([200, 200]);
    pgs.signal('SIGSTOP');
    try {
      const [history, l2History, gas, forecast] = await Promise.all([
        get('/api/gas-history?range=30d'),
        get('/api/l2-gas-history?network=base&hours=1'),
        get('/api/gas'),
        get('/api/gas-predictions?timeframe=6h'),
      ]);
      for (const { res, body } of [history, l2History]) {
        expect(res.status).toBe(503);
        expect(res.headers.get('Retry-After')).toBe('30');
        expect(res.headers.get('Content-Type')).toContain('application/problem+json');
        expect(body.status).toBe(503);
      }
      // The live reading is served; only its rank among stored hours is missing.
      expect(gas.res.status).toBe(200);
      expect(gas.body.baseFeePercentile7d).toBeNull();
      // The forecast stands on its built-in profile.
      expect(forecast.res.status).toBe(200);
      expect(forecast.body.usingFallbackData).toBe(true);
    } finally {
      pgs.signal('SIGCONT');
    }
    const logged = lines.join('\n');
    for (const said of ['history store unavailable', 'base fee rank unavailable', 'for the forecast'])
      expect(logged).toContain(said);
    expect(logged).not.toContain(String(pgs.port));
    // The store answers again: so does history (a new read, not a failure kept).
    expect((await get('/api/gas-history?range=30d')).res.status).toBe(200);

    // The same store, answering, gives what was missing above.
    const control = await startHost([]);
    expect((await control('/api/gas')).body.baseFeePercentile7d).toEqual(expect.any(Number));
    expect((await control('/api/gas-predictions?timeframe=6h')).body.usingFallbackData).toBe(false);
  });
});

/**
 * A TCP relay in front of the server whose `blackhole()` stops carrying bytes on the connections open
 * at that moment (a path that died without a reset) while new connections still get through.
 */
async function startRelay(port: number) {
  const pairs: { client: Socket; server: Socket }[] = [];
  const sockets: Socket[] = [];
  const relay = createServer((client) => {
    const server = connect(port, '127.0.0.1');
    client.pipe(server).pipe(client);
    client.on('error', () => server.destroy());
    server.on('error', () => client.destroy());
    pairs.push({ client, server });
    sockets.push(client, server);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    blackhole() {
      for (const { client, server } of pairs.splice(0)) {
        client.unpipe(server);
        server.unpipe(client);
        client.pause();
        server.pause();
      }
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}

describe('a connection that dies inside a transaction (node-postgres engine)', () => {
  it('retires the pool it came from, so the next unit of work gets a fresh connection', async () => {
    const relay = await startRelay(pgs.port);
    const through = new URL(url);
    through.port = String(relay.port);
    // A short query timeout, so the test does not wait the production 10 s twice (query and rollback).
    const engine = await openDatabase({ kind: 'pg', url: through.toString(), queryTimeoutMs: 500 });
    try {
      expect(await engine.withDb((db) => queryRows(db, sql`SELECT 1 AS one`))).toEqual([{ one: 1 }]);
      const stuck = engine.withDb((db) =>
        db.transaction(async (tx) => {
          await tx.execute(sql`SELECT 1`);
          relay.blackhole();
          await tx.execute(sql`SELECT 2`);
        }),
      );
      await expect(stuck).rejects.toThrow();
      // The transaction handed its dead connection back; without a new pool this read would reuse it.
      const after = await engine.withDb((db) => queryRows(db, sql`SELECT 3 AS three`));
      expect(after).toEqual([{ three: 3 }]);
    } finally {
      void engine.close().catch(() => {});
      await relay.close();
    }
  });
});
