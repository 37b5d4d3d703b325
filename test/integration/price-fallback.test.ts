import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import type { AppDeps } from '../../lib/deps';
import { EthPriceSchema } from '../../lib/schemas/eth-price';
import { getTokenPrice, LAST_GOOD_MAX_AGE_MS, PRICE_FRESH_MS } from '../../lib/services/eth-price';
import { BACKOFF_BASE_MS, BACKOFF_MAX_MS } from '../../lib/upstream/price-chain';
import { createFaultyStore, createTestDeps } from '../helpers/deps';
import { type CoinbaseSim, startCoinbaseSim } from '../upstreams/coinbase-sim';
import { type CoinGeckoSim, startCoinGeckoSim } from '../upstreams/coingecko-sim';
import type { FaultMode } from '../upstreams/faults';
import { type KrakenSim, startKrakenSim } from '../upstreams/kraken-sim';

// One clock for the app and the simulators, moved by the tests to step past the 30-second cache.
let clock = Date.now();
const now = () => clock;

let coingecko: CoinGeckoSim;
let coinbase: CoinbaseSim;
let kraken: KrakenSim;

beforeAll(async () => {
  [coingecko, coinbase, kraken] = await Promise.all([
    startCoinGeckoSim({ now }),
    startCoinbaseSim({ now }),
    startKrakenSim({ now }),
  ]);
});
afterEach(async () => {
  await Promise.all([coingecko.reset(), coinbase.reset(), kraken.reset()]);
  clock = Date.now();
});
afterAll(async () => {
  await Promise.all([coingecko?.close(), coinbase?.close(), kraken?.close()]);
});

/** A fresh app instance against the simulators; a short upstream budget keeps hang tests quick. */
function instance(overrides: Partial<AppDeps> = {}) {
  const deps = createTestDeps(
    {
      COINGECKO_API_URL: coingecko.url,
      COINBASE_API_URL: coinbase.url,
      KRAKEN_API_URL: kraken.url,
      UPSTREAM_TIMEOUT_MS: '300',
      PUBLIC_BASE_URL: 'https://gas.test',
    },
    { now, ...overrides },
  );
  const app = createApp(deps);
  return {
    deps,
    async get() {
      const res = await app.request('/api/eth-price');
      const body = EthPriceSchema.parse(await res.json());
      return { status: res.status, cacheControl: res.headers.get('Cache-Control'), body };
    },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

const faultAll = (mode: FaultMode) =>
  Promise.all([coingecko, coinbase, kraken].map((sim) => sim.fault(mode)));

describe('GET /api/eth-price against the upstream simulators', () => {
  it('answers from CoinGecko with its 24 h change and 168-value sparkline', async () => {
    const { status, body } = await instance().get();
    expect(status).toBe(200);
    expect(body).toMatchObject({ usd: 3012.45, source: 'aggregator', priceSource: 'aggregator' });
    expect(body.sparkline_7d).toHaveLength(168);
    expect(body.sparkline_7d.at(-1)).toBe(3012.45);
    expect(typeof body.change_24h).toBe('number');
    expect(coingecko.requests.byMethod.markets).toBe(1);
    expect(coinbase.requests.total + kraken.requests.total).toBe(0);
  });

  it.each<FaultMode>(['refuse', 'hang', 'http-500', 'http-429', 'malformed', 'rpc-error', 'stale', 'absurd'])(
    'falls back to exchange_a when the aggregator fails (%s)',
    async (mode) => {
      await coingecko.fault(mode);
      const { body } = await instance().get();
      expect(body).toMatchObject({
        usd: 3011.87,
        source: 'exchange_a',
        priceSource: 'exchange_a',
        change_24h: null,
      });
      expect(body.sparkline_7d).toEqual([]);
    },
  );

  it('falls back to exchange_b when the aggregator and exchange_a fail', async () => {
    await coingecko.fault('http-500');
    await coinbase.fault('hang');
    const { body } = await instance().get();
    expect(body).toMatchObject({ usd: 3012.1, source: 'exchange_b', priceSource: 'exchange_b' });
    // The simulator has no OHLC route, so the change cannot be computed and is null rather than guessed.
    expect(body.change_24h).toBeNull();
  });

  it('keeps the last CoinGecko sparkline when an exchange answers later', async () => {
    const app = instance();
    const first = await app.get();
    await coingecko.fault('refuse');
    clock += PRICE_FRESH_MS;
    const { body } = await app.get();
    expect(body.source).toBe('exchange_a');
    expect(body.sparkline_7d).toEqual(first.body.sparkline_7d);
  });

  it.each<[FaultMode, string]>([
    ['hang', 'stale-timeout'],
    ['delay', 'stale-timeout'],
    ['http-500', 'stale-error'],
    ['malformed', 'stale-error'],
    ['refuse', 'stale-error'],
    ['absurd', 'stale-error'],
  ])(
    'serves the last good value when every source fails (%s -> %s), then stale-cooldown',
    async (mode, label) => {
      const app = instance();
      const live = await app.get();
      await faultAll(mode);
      clock += PRICE_FRESH_MS + 1000;
      const stale = await app.get();
      expect(stale.status).toBe(200);
      expect(stale.body).toMatchObject({ usd: 3012.45, priceSource: 'aggregator', source: label });
      expect(stale.body.updatedAt).toBe(live.body.updatedAt);
      // Since the quote's own time: the simulated CoinGecko's last_updated, 30 s before it was read.
      expect(stale.body.staleAgeMs).toBe(clock - Date.parse(live.body.updatedAt));
      expect(stale.body.staleAgeMs).toBe(PRICE_FRESH_MS + 1000 + 30_000);
      const asked = coingecko.requests.total + coinbase.requests.total + kraken.requests.total;
      const again = await app.get();
      expect(again.body).toMatchObject({ usd: 3012.45, source: 'stale-cooldown' });
      expect(coingecko.requests.total + coinbase.requests.total + kraken.requests.total).toBe(asked);
    },
  );

  it('answers unavailable on a cold start with every source down', async () => {
    await faultAll('http-500');
    const { status, cacheControl, body } = await instance().get();
    expect(status).toBe(200);
    expect(cacheControl).toBe('public, max-age=30, s-maxage=30');
    expect(body).toMatchObject({ usd: null, source: 'unavailable', sparkline_7d: [] });
    expect(body.priceSource ?? null).toBeNull();
  });

  it('dates an outage answer by the failed attempt: the same answer and tag through a back-off, 304 on it', async () => {
    await faultAll('refuse');
    // The simulators refuse connections, so they count nothing: the app's own calls are counted.
    let calls = 0;
    const { deps } = instance({
      fetch: (input, init) => {
        calls += 1;
        return fetch(input, init);
      },
    });
    const app = createApp(deps);
    const get = async (ifNoneMatch?: string) => {
      const headers: Record<string, string> = ifNoneMatch ? { 'If-None-Match': ifNoneMatch } : {};
      const res = await app.request('/api/eth-price', { headers });
      const text = await res.text();
      return {
        status: res.status,
        etag: res.headers.get('ETag'),
        lastModified: res.headers.get('Last-Modified'),
        text,
        body: text ? EthPriceSchema.parse(JSON.parse(text)) : null,
      };
    };
    // The cold start's attempt: every source refuses, and the shared entry's failure starts a back-off (5 s).
    const attemptAt = clock;
    const first = await get();
    expect(first.body).toMatchObject({ usd: null, source: 'unavailable', updatedAt: iso(attemptAt) });
    expect(first.body?.citation).toContain(`updated ${iso(attemptAt)}`);
    expect(first.lastModified).toBe(new Date(attemptAt).toUTCString());
    const askedOnce = calls;
    expect(askedOnce).toBeGreaterThan(0);

    // Two seconds on, within the back-off: nothing is asked, and nothing was read since. Until
    // 2026-11-28 `updatedAt` was the serving time, so every answer of an outage had a new tag.
    clock += 2_000;
    const second = await get();
    expect(second.status).toBe(200);
    expect(second.body?.updatedAt).toBe(iso(attemptAt));
    expect(second.etag).toBe(first.etag);
    expect(second.lastModified).toBe(first.lastModified);
    expect(second.text).toBe(first.text);
    const notModified = await get(first.etag ?? '');
    expect(notModified.status).toBe(304);
    expect(notModified.etag).toBe(first.etag);
    expect(notModified.text).toBe('');
    expect(calls).toBe(askedOnce);

    // Past the entry's back-off and each source's own (10 s): the next attempt asks them again and
    // fails, and the answer is dated by that attempt, under a new tag.
    clock += BACKOFF_BASE_MS;
    const retriedAt = clock;
    const third = await get(first.etag ?? '');
    expect(calls).toBeGreaterThan(askedOnce);
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ usd: null, source: 'unavailable', updatedAt: iso(retriedAt) });
    expect(third.lastModified).toBe(new Date(retriedAt).toUTCString());
    expect(third.etag).not.toBe(first.etag);
    clock += 1_000;
    expect((await get(third.etag ?? '')).status).toBe(304);
  });

  it('answers unavailable once the last good value is older than 5 minutes', async () => {
    const app = instance();
    await app.get();
    await faultAll('refuse');
    clock += LAST_GOOD_MAX_AGE_MS + BACKOFF_MAX_MS;
    const { body } = await app.get();
    expect(body).toMatchObject({ usd: null, source: 'unavailable' });
  });

  it('serves POL/USD through the same chain', async () => {
    const { deps } = instance();
    expect(await getTokenPrice(deps, 'POL')).toMatchObject({ usd: 0.1853, source: 'aggregator' });
    await coingecko.fault('http-500');
    const fresh = instance();
    expect(await getTokenPrice(fresh.deps, 'POL')).toMatchObject({ usd: 0.1852, source: 'exchange_a' });
  });

  it('never answers 5xx, whatever every source does, with the last-good store failing too', async () => {
    const brokenStore = createFaultyStore('throw');
    const modes: FaultMode[] = [
      'refuse',
      'hang',
      'delay',
      'http-500',
      'http-429',
      'malformed',
      'rpc-error',
      'wrong-chain',
      'stale',
      'lag',
      'absurd',
    ];
    for (const mode of modes) {
      await faultAll(mode);
      const app = instance({ lastGood: brokenStore });
      const first = await app.get();
      const second = await app.get();
      for (const answer of [first, second]) {
        expect(answer.status, mode).toBe(200);
        // Schema-valid (parsed in get()), and a null price only ever comes labelled unavailable.
        expect(answer.body.usd === null, mode).toBe(answer.body.source === 'unavailable');
      }
      await Promise.all([coingecko.reset(), coinbase.reset(), kraken.reset()]);
    }
  });
});
