import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import type { AppDeps } from '../../lib/deps';
import { GasHistoryResponseSchema, L2GasHistoryResponseSchema } from '../../lib/schemas/history';
import type { WithDb } from '../../lib/store/database';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { insertL2Snapshots } from '../../lib/store/history-writes';
import { listSlotStarts, slotStartOf } from '../../lib/store/slots';
import { createTestDeps } from '../helpers/deps';
import { findFreePort } from '../helpers/free-port';
import { clearHistory, ENGINE_KINDS, type EngineLab, startEngineLab } from './helpers/history-engines';

const NOW = slotStartOf(Date.UTC(2026, 10, 21, 16, 5, 0)) + 12_000;
const SECRET = 'pw-9f3c1e-secret';

let lab: EngineLab;
beforeAll(async () => {
  lab = await startEngineLab();
});
afterAll(async () => {
  await lab?.close();
});

function appOn(withDb: WithDb, extra: Partial<AppDeps> = {}) {
  const deps = createTestDeps({ PUBLIC_BASE_URL: 'https://gas.test' }, { withDb, now: () => NOW, ...extra });
  return { app: createApp(deps), deps };
}

describe.each(ENGINE_KINDS)('history endpoints on %s', (kind) => {
  let engine: DatabaseEngine;
  beforeAll(async () => {
    engine = await lab.open(kind);
  });
  beforeEach(async () => {
    await engine.withDb(clearHistory);
  });

  it('answers an empty mainnet series from an empty store', async () => {
    const res = await appOn(engine.withDb).app.request('/api/gas-history');
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=30, s-maxage=30');
    const body = GasHistoryResponseSchema.parse(await res.json());
    expect(body).toEqual({
      citation: `Data from Gas Fee API (https://gas.test), free public Ethereum gas data, updated ${new Date(NOW).toISOString()}`,
      tier: 'free',
      range: '1d',
      points: [],
      meta: {
        requestedRange: '1d',
        renderedRangeStart: null,
        renderedRangeEnd: null,
        pointCount: 0,
        bucketSeconds: 360,
        source: 'snapshots',
      },
    });
  });

  it('answers an empty L2 series from an empty store', async () => {
    const res = await appOn(engine.withDb).app.request('/api/l2-gas-history?network=base&hours=6');
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=15, s-maxage=15');
    expect(L2GasHistoryResponseSchema.parse(await res.json())).toMatchObject({
      network: 'base',
      hours: 6,
      points: [],
    });
  });

  it.each([
    [1, 40],
    [6, 240],
    [24, 960],
    [168, 6_720],
  ])('serves the raw samples of the last %i hours oldest first (%i slots)', async (hours, expected) => {
    const slots = listSlotStarts(NOW - 8 * 86_400_000, NOW + 1);
    await engine.withDb((db) =>
      insertL2Snapshots(
        db,
        slots.flatMap((slot, i) => [
          {
            network: 'arbitrum',
            slotStart: slot,
            readAt: slot + 2_000,
            gasPriceGwei: 0.01 + (i % 13) / 1000,
            executionGasCostUsd: (0.01 + (i % 13) / 1000) * 21_000 * 1e-9 * 3_100,
            l1DataFeeUsd: null,
            nativeUsd: 3_100,
          },
          {
            network: 'polygon',
            slotStart: slot,
            readAt: slot + 2_000,
            gasPriceGwei: 30,
            executionGasCostUsd: 0.0003,
            l1DataFeeUsd: null,
            nativeUsd: 0.5,
          },
        ]),
      ),
    );
    const res = await appOn(engine.withDb).app.request(`/api/l2-gas-history?network=arbitrum&hours=${hours}`);
    expect(res.status).toBe(200);
    const body = L2GasHistoryResponseSchema.parse(await res.json());
    expect(body.network).toBe('arbitrum');
    expect(body.hours).toBe(hours);
    const inWindow = slots.filter((slot) => slot > NOW - hours * 3_600_000 && slot <= NOW);
    expect(body.points).toHaveLength(expected);
    expect(body.points.map((p) => Date.parse(p.timestamp))).toEqual(inWindow);
    const last = body.points.at(-1);
    const index = slots.indexOf(inWindow.at(-1) as number);
    expect(last?.gas_price_gwei).toBeCloseTo(0.01 + (index % 13) / 1000, 12);
    expect(last?.execution_gas_cost_usd).toBeCloseTo(
      (0.01 + (index % 13) / 1000) * 21_000 * 1e-9 * 3_100,
      15,
    );
    expect(body.citation).toMatch(
      new RegExp(`updated ${new Date((inWindow.at(-1) as number) + 2_000).toISOString()}$`),
    );
  });
});

describe('history endpoint parameters', () => {
  const calls: string[] = [];
  const withDb: WithDb = () => {
    calls.push('db');
    return Promise.reject(new Error('a bad parameter must not reach the store'));
  };
  const request = (path: string) => appOn(withDb).app.request(path);
  const RANGES = ['10m', '30m', '2h', '6h', '1d', '7d', '30d'];
  const oversized = 'x'.repeat(5_000);

  it.each([
    ['repeated', '?range=1d&range=7d', 'is repeated'],
    ['empty', '?range=', 'is empty'],
    ['wrong-case', '?range=1D', '"1D" is not an allowed value'],
    ['unknown', '?range=1y', '"1y" is not an allowed value'],
    ['oversized', `?range=${oversized}`, 'is not an allowed value'],
  ])('gas-history: a %s range is a 400 naming range and its allowed values', async (_case, query, reason) => {
    const res = await request(`/api/gas-history${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    const body = (await res.json()) as { invalidParams: unknown };
    expect(body.invalidParams).toEqual([
      { name: 'range', reason: expect.stringContaining(reason), allowed: RANGES },
    ]);
    expect(JSON.stringify(body).length).toBeLessThan(2_000);
    expect(calls).toEqual([]);
  });

  it.each(['range[]', 'range[0]', 'range%5Bx%5D', '%20range'])(
    'gas-history: %s=7d is a 400 naming the name sent, never the 1d default',
    async (name) => {
      const res = await request(`/api/gas-history?${name}=7d`);
      expect(res.status).toBe(400);
      expect(res.headers.get('Content-Type')).toBe('application/problem+json');
      const body = (await res.json()) as { invalidParams: unknown };
      expect(body.invalidParams).toEqual([
        {
          name: decodeURIComponent(name),
          reason: expect.stringContaining('did you mean range?'),
          allowed: RANGES,
        },
      ]);
      expect(calls).toEqual([]);
    },
  );

  const NETWORKS = ['arbitrum', 'optimism', 'base', 'polygon'];
  const HOURS = ['1', '6', '24', '168'];
  it.each([
    ['missing network', '?hours=24', [['network', 'is required']]],
    ['missing hours', '?network=base', [['hours', 'is required']]],
    [
      'missing both',
      '',
      [
        ['network', 'is required'],
        ['hours', 'is required'],
      ],
    ],
    ['repeated network', '?network=base&network=base&hours=24', [['network', 'is repeated']]],
    [
      'array-style network',
      '?network[]=base&hours=1',
      [['network', 'is required (network[] was given: array-style names with brackets are not read)']],
    ],
    ['repeated hours', '?network=base&hours=1&hours=6', [['hours', 'is repeated']]],
    ['empty network', '?network=&hours=24', [['network', 'is empty']]],
    ['empty hours', '?network=base&hours=', [['hours', 'is empty']]],
    ['wrong-case network', '?network=Base&hours=24', [['network', '"Base" is not an allowed value']]],
    ['unknown network', '?network=zksync&hours=24', [['network', '"zksync" is not an allowed value']]],
    ['hours not in the set', '?network=base&hours=2', [['hours', '"2" is not an allowed value']]],
    // A number's 400 says how to write one (case means nothing to it).
    [
      'hours as a decimal',
      '?network=base&hours=1.0',
      [
        [
          'hours',
          '"1.0" is not an allowed value (an integer, written as listed: no decimal point, sign, spaces or leading zeros)',
        ],
      ],
    ],
    [
      'hours with a leading zero',
      '?network=base&hours=01',
      [
        [
          'hours',
          '"01" is not an allowed value (an integer, written as listed: no decimal point, sign, spaces or leading zeros)',
        ],
      ],
    ],
    ['oversized hours', `?network=base&hours=${oversized}`, [['hours', 'is not an allowed value']]],
  ])(
    'l2-gas-history: %s is a 400 naming each parameter and its allowed values',
    async (_case, query, expected) => {
      const res = await request(`/api/l2-gas-history${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('Content-Type')).toBe('application/problem+json');
      const body = (await res.json()) as { invalidParams: unknown };
      expect(body.invalidParams).toEqual(
        expected.map(([name, reason]) => ({
          name,
          reason: expect.stringContaining(reason as string),
          allowed: name === 'network' ? NETWORKS : HOURS,
        })),
      );
      expect(calls).toEqual([]);
    },
  );
});

describe('history endpoints when the store cannot be reached', () => {
  let silent: Server;
  let silentPort: number;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    // Accepts connections and never answers: a database host that hangs.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  const unreachable: Array<[string, () => Promise<DatabaseEngine>]> = [
    ['pg, nothing listening', async () => openDatabase({ kind: 'pg', url: await deadUrl() })],
    ['neon, nothing listening', async () => openDatabase({ kind: 'neon', url: await deadUrl() })],
    ['pg, host hangs', async () => openDatabase({ kind: 'pg', url: hangingUrl(), connectTimeoutMs: 300 })],
    [
      'neon, host hangs',
      async () => openDatabase({ kind: 'neon', url: hangingUrl(), connectTimeoutMs: 300 }),
    ],
    ['pg, database missing', async () => openDatabase({ kind: 'pg', url: lab.server.url('nowhere') })],
    [
      'pglite, closed',
      async () => {
        const engine = await openDatabase({ kind: 'pglite' });
        await engine.close();
        return engine;
      },
    ],
  ];
  async function deadUrl() {
    return `postgres://reader:${SECRET}@127.0.0.1:${await findFreePort()}/gas`;
  }
  function hangingUrl() {
    return `postgres://reader:${SECRET}@127.0.0.1:${silentPort}/gas`;
  }

  it.each(unreachable)(
    'answers 503 with Retry-After (%s), leaking no connection detail',
    async (_case, open) => {
      const engine = await open();
      const { app, deps } = appOn(engine.withDb);
      for (const path of ['/api/gas-history?range=7d', '/api/l2-gas-history?network=optimism&hours=24']) {
        const res = await app.request(path);
        expect(res.status).toBe(503);
        expect(res.headers.get('Retry-After')).toBe('30');
        expect(res.headers.get('Content-Type')).toBe('application/problem+json');
        const text = await res.text();
        expect(JSON.parse(text)).toMatchObject({ status: 503, title: 'History store unavailable' });
        expect(text).not.toMatch(/127\.0\.0\.1|postgres:|reader|pw-|stack|at /);
      }
      expect((deps as ReturnType<typeof createTestDeps>).logs.join('\n')).not.toContain(SECRET);
      expect(
        (deps as ReturnType<typeof createTestDeps>).logs.some((line) =>
          line.includes('history store unavailable'),
        ),
      ).toBe(true);
      await engine.close().catch(() => {});
    },
  );

  it('serves again as soon as the store is back, since a failure is not cached', async () => {
    const engine = await lab.open('pg');
    let down = true;
    const flaky: WithDb = (fn) =>
      down ? Promise.reject(new Error('connection refused')) : engine.withDb(fn);
    const { app } = appOn(flaky);
    expect((await app.request('/api/gas-history')).status).toBe(503);
    down = false;
    expect((await app.request('/api/gas-history')).status).toBe(200);
  });
});
