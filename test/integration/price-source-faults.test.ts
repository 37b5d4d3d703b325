import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { EthPriceSchema } from '../../lib/schemas/eth-price';
import { PRICE_FRESH_MS } from '../../lib/services/eth-price';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { expectNoLeaks, type FaultMode, startUpstreams, type Upstreams } from '../upstreams';

// One clock for the app and the simulators, moved by the tests to step past the 30-second cache.
let clock = Date.now();
const now = () => clock;

let up: Upstreams;

beforeAll(async () => {
  up = await startUpstreams({ now });
});
afterEach(async () => {
  await up.reset();
  clock = Date.now();
});
afterAll(async () => {
  await up?.close();
});

// The prices each simulator quotes for ETH (see coingecko-sim.ts, coinbase-sim.ts, kraken-sim.ts).
const AGGREGATOR_USD = 3012.45;
const EXCHANGE_B_USD = 3012.1;

/**
 * The upstream budget per attempt: short where a source hangs, so those cases stay quick, ample
 * otherwise, so a loaded machine's slow but healthy answer is never mistaken for a fault.
 */
const budgetFor = (mode: FaultMode) => (mode === 'hang' ? '300' : '3000');

/** A fresh app instance (its own cache, back-off and last-known-good store) against the simulators. */
function instance(mode: FaultMode) {
  const deps = createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: budgetFor(mode) }, { now });
  const app = createApp(deps);
  return {
    deps,
    async get() {
      const res = await app.request('/api/eth-price');
      const text = await res.text();
      expectNoTrace(text, deps);
      const body = EthPriceSchema.parse(JSON.parse(text));
      return { status: res.status, cacheControl: res.headers.get('Cache-Control'), body };
    },
  };
}

/** Neither the body nor any log line carries a simulator URL, origin, path, address, port or key. */
function expectNoTrace(text: string, deps: TestDeps): void {
  const forbidden = [
    ...up.secrets,
    ...up.all.flatMap((sim) => [sim.url, sim.origin, `:${sim.port}`]),
    '/api/v3',
    '/v2/prices',
    '/0/public',
  ];
  for (const trace of forbidden) {
    expect(text).not.toContain(trace);
    for (const line of deps.logs) expect(line).not.toContain(trace);
  }
  expectNoLeaks(up, text, ...deps.logs);
}

interface SourceFailure {
  token: string;
  source: string;
  kind: string;
  reason: string;
}

/** The `price source failed` log lines, parsed. */
function sourceFailures(deps: TestDeps): SourceFailure[] {
  const marker = 'price source failed ';
  return deps.logs
    .filter((line) => line.includes(marker))
    .map((line) => JSON.parse(line.slice(line.indexOf(marker) + marker.length)) as SourceFailure);
}

/** Exactly one failure logged for `source`, naming the token, the failure kind and why. */
function expectLoggedFailure(deps: TestDeps, source: string, kind: string, reason: RegExp): void {
  const lines = sourceFailures(deps).filter((failure) => failure.source === source);
  expect(lines, `log lines for ${source}: ${deps.logs.join('\n')}`).toHaveLength(1);
  expect(lines[0]).toMatchObject({ token: 'ETH', source, kind });
  expect(lines[0]?.reason).toMatch(reason);
}

/** Each fault as the app should see and log it: the chain's failure kind and the logged reason. */
interface FaultCase {
  mode: FaultMode;
  kind: 'error' | 'timeout';
  reason: RegExp;
}

const COINBASE_FAULTS: FaultCase[] = [
  { mode: 'http-429', kind: 'error', reason: /^HTTP 429$/ },
  { mode: 'http-500', kind: 'error', reason: /^HTTP 500$/ },
  { mode: 'malformed', kind: 'error', reason: /^malformed JSON$/ },
  // Coinbase answers its own errors (`{"errors":[{"id":"invalid_request",...}]}`) with HTTP 400.
  { mode: 'rpc-error', kind: 'error', reason: /^HTTP 400$/ },
  { mode: 'absurd', kind: 'error', reason: /^price out of range for ETH$/ },
  // An answer a cache in front of the API has held for 10 minutes (`Age: 600`): not read live.
  { mode: 'stale', kind: 'error', reason: /^answer held by a cache for 600 s$/ },
  { mode: 'hang', kind: 'timeout', reason: /^no answer within \d+ ms$/ },
  { mode: 'refuse', kind: 'error', reason: /ECONNREFUSED/ },
];

const KRAKEN_FAULTS: FaultCase[] = [
  { mode: 'http-429', kind: 'error', reason: /^HTTP 429$/ },
  { mode: 'http-500', kind: 'error', reason: /^HTTP 500$/ },
  { mode: 'malformed', kind: 'error', reason: /^malformed JSON$/ },
  // Kraken answers its own errors with HTTP 200 and a non-empty `error` list.
  { mode: 'rpc-error', kind: 'error', reason: /^Kraken error EService:Unavailable$/ },
  { mode: 'absurd', kind: 'error', reason: /^price out of range for ETH$/ },
  // An answer a cache in front of the API has held for 10 minutes (`Age: 600`): not read live.
  { mode: 'stale', kind: 'error', reason: /^answer held by a cache for 600 s$/ },
  { mode: 'hang', kind: 'timeout', reason: /^no answer within \d+ ms$/ },
  { mode: 'refuse', kind: 'error', reason: /ECONNREFUSED/ },
];

describe('Coinbase (exchange_a) failing alone, CoinGecko down, Kraken healthy', () => {
  it.each(COINBASE_FAULTS)(
    'Kraken serves as exchange_b when Coinbase fails ($mode)',
    async ({ mode, kind, reason }) => {
      await up.coingecko.fault('http-500');
      await up.coinbase.fault(mode);
      const app = instance(mode);
      const { status, body } = await app.get();
      expect(status).toBe(200);
      expect(body).toMatchObject({ usd: EXCHANGE_B_USD, source: 'exchange_b', priceSource: 'exchange_b' });
      expect(body.staleAgeMs).toBeUndefined();
      expect(up.kraken.requests.byMethod.ticker).toBe(1);
      expectLoggedFailure(app.deps, 'aggregator', 'error', /^HTTP 500$/);
      expectLoggedFailure(app.deps, 'exchange_a', kind, reason);
      expect(sourceFailures(app.deps).filter((f) => f.source === 'exchange_b')).toEqual([]);
    },
  );
});

describe('Kraken (exchange_b) failing alone, CoinGecko and Coinbase down', () => {
  /** The two sources ahead of Kraken fail in ways of their own, so every line names its source. */
  async function failAheadOfKraken() {
    await up.coingecko.fault('http-500');
    await up.coinbase.fault('http-429');
  }

  it.each(KRAKEN_FAULTS)(
    'serves the last good value as stale when Kraken fails too ($mode)',
    async ({ mode, kind, reason }) => {
      const app = instance(mode);
      const live = await app.get();
      expect(live.body).toMatchObject({ usd: AGGREGATOR_USD, source: 'aggregator' });
      await failAheadOfKraken();
      await up.kraken.fault(mode);
      clock += PRICE_FRESH_MS + 1000;
      const { status, body } = await app.get();
      expect(status).toBe(200);
      expect(body).toMatchObject({
        usd: AGGREGATOR_USD,
        priceSource: 'aggregator',
        source: kind === 'timeout' ? 'stale-timeout' : 'stale-error',
        // Since the quote's own time (the simulated CoinGecko's last_updated), not since it was read.
        staleAgeMs: clock - Date.parse(live.body.updatedAt),
        updatedAt: live.body.updatedAt,
      });
      // Kraken was asked once (a refused connection never reaches the simulator's counters).
      expect(up.kraken.requests.byMethod.ticker ?? 0).toBe(mode === 'refuse' ? 0 : 1);
      expectLoggedFailure(app.deps, 'aggregator', 'error', /^HTTP 500$/);
      expectLoggedFailure(app.deps, 'exchange_a', 'error', /^HTTP 429$/);
      expectLoggedFailure(app.deps, 'exchange_b', kind, reason);
    },
  );

  it.each(KRAKEN_FAULTS)(
    'answers unavailable (200) on a cold start when Kraken fails too ($mode)',
    async ({ mode, kind, reason }) => {
      await failAheadOfKraken();
      await up.kraken.fault(mode);
      const app = instance(mode);
      const { status, cacheControl, body } = await app.get();
      expect(status).toBe(200);
      expect(cacheControl).toBe('public, max-age=30, s-maxage=30');
      expect(body).toMatchObject({ usd: null, source: 'unavailable', sparkline_7d: [] });
      expect(body.priceSource ?? null).toBeNull();
      expect(body.staleAgeMs).toBeUndefined();
      expectLoggedFailure(app.deps, 'exchange_b', kind, reason);
      const unavailable = app.deps.logs.filter((line) => line.includes('price unavailable'));
      expect(unavailable).toHaveLength(1);
      expect(unavailable[0]).toContain(`"failure":"${kind}"`);
    },
  );

  it('does not log a Kraken error text that echoes the simulator URL and port', async () => {
    await failAheadOfKraken();
    await up.kraken.fault('rpc-error', {
      message: `EService:Unavailable at ${up.kraken.origin}/0/public/Ticker?pair=ETHUSD`,
    });
    const app = instance('rpc-error');
    // get() fails the test on any simulator trace in the body or the log lines.
    const { body } = await app.get();
    expect(body).toMatchObject({ usd: null, source: 'unavailable' });
    expectLoggedFailure(app.deps, 'exchange_b', 'error', /^Kraken error EService:Unavailable at /);
  });
});

describe('stale readings', () => {
  it('refuses a CoinGecko reading 10 minutes old and serves Coinbase as exchange_a', async () => {
    await up.coingecko.fault('stale', { seconds: 600 });
    const app = instance('stale');
    const { body } = await app.get();
    expect(body).toMatchObject({ usd: 3011.87, source: 'exchange_a', priceSource: 'exchange_a' });
    expectLoggedFailure(app.deps, 'aggregator', 'error', /^reading is 600 s old$/);
    expect(up.kraken.requests.total).toBe(0);
  });

  it('accepts a CoinGecko reading under 3 minutes old, dated by its last_updated', async () => {
    await up.coingecko.fault('stale', { seconds: 170 });
    const app = instance('stale');
    const { body } = await app.get();
    expect(body).toMatchObject({ usd: AGGREGATOR_USD, source: 'aggregator' });
    expect(Date.parse(body.updatedAt)).toBe(clock - 170_000);
    expect(sourceFailures(app.deps)).toEqual([]);
  });

  it('refuses a CoinGecko reading 290 s old: it would be last-known-good for 10 s', async () => {
    await up.coingecko.fault('stale', { seconds: 290 });
    const app = instance('stale');
    const { body } = await app.get();
    expect(body).toMatchObject({ usd: 3011.87, source: 'exchange_a' });
    expectLoggedFailure(app.deps, 'aggregator', 'error', /^reading is 290 s old$/);
  });

  it('serves Kraken when CoinGecko is stale and Coinbase fails', async () => {
    await up.coingecko.fault('stale');
    await up.coinbase.fault('http-500');
    const app = instance('stale');
    const { body } = await app.get();
    expect(body).toMatchObject({ usd: EXCHANGE_B_USD, source: 'exchange_b', priceSource: 'exchange_b' });
    expectLoggedFailure(app.deps, 'aggregator', 'error', /^reading is 600 s old$/);
    expectLoggedFailure(app.deps, 'exchange_a', 'error', /^HTTP 500$/);
  });
});
