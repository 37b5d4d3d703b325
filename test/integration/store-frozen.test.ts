import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import { startUpstreams, type Upstreams } from '../upstreams';
import { type PostgresServer, startPostgres } from './helpers/postgres-server';

// A PostgreSQL 15 server that stops answering with connections open (SIGSTOP: a hung host, a network
// that drops packets without a reset). Reads that reuse a pooled connection then wait for a reply
// that never comes; the requests sharing them must still be answered as SPEC decision 7 says.

let up: Upstreams;
let pgs: PostgresServer;
let host: NodeHost;
const lines: string[] = [];

beforeAll(async () => {
  [up, pgs] = await Promise.all([startUpstreams(), startPostgres()]);
  const url = await pgs.createDatabase('frozen');
  host = await startNodeHost(
    { ...up.env, PORT: '0', DATABASE_URL: url },
    { scheduler: false, log: createLogger((line) => lines.push(line)) },
  );
});
afterAll(async () => {
  pgs?.signal('SIGCONT');
  await host?.close();
  await Promise.all([up?.close(), pgs?.stop()]);
});

/** GETs a path of the host; a request with no answer fails the test instead of hanging it. */
async function get(path: string) {
  const res = await fetch(`http://127.0.0.1:${host.port}${path}`, { signal: AbortSignal.timeout(25_000) });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

describe('a store that stops answering (real PostgreSQL 15, frozen)', () => {
  it('answers history with 503, and gas and forecasts without the store, then recovers', async () => {
    // A pooled connection: the next read reuses it.
    expect((await get('/api/gas-history?range=1d')).res.status).toBe(200);
    pgs.signal('SIGSTOP');
    try {
      const [history, l2History, gas, forecast] = await Promise.all([
        get('/api/gas-history?range=7d'),
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
    // The store answers again: so does history (a new read, not a failure kept).
    expect((await get('/api/gas-history?range=30d')).res.status).toBe(200);
    const logged = lines.join('\n');
    expect(logged).toContain('history store unavailable');
    expect(logged).not.toContain(String(pgs.port));
  });
});
