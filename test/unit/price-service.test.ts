import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import type { AppDeps } from '../../lib/deps';
import type { EthPriceBody } from '../../lib/schemas/eth-price';
import {
  getTokenPrice,
  LAST_GOOD_MAX_AGE_MS,
  POL_FRESH_MS,
  PRICE_FRESH_MS,
  SPARKLINE_MAX_AGE_MS,
} from '../../lib/services/eth-price';
import { REFRESH_LEAD } from '../../lib/store/shared-read';
import { BACKOFF_MAX_MS } from '../../lib/upstream/price-chain';
import { loadPriceFixture } from '../fixtures/price/load-fixture';
import { createFaultyStore, createTestDeps } from '../helpers/deps';

const fixture = (name: string) => loadPriceFixture(name).body;

type Mode = 'ok' | 'hang' | 'http-500';
type Behaviour = Record<'coingecko' | 'coinbase' | 'kraken', Mode>;

/**
 * Deps whose upstreams follow a mutable behaviour, on a test clock that only moves when told. `quote`
 * dates the answers: CoinGecko's `last_updated` is `ageMs` old, and every answer carries `Age: ageS`.
 */
function setup(overrides: Partial<AppDeps> = {}) {
  const behaviour: Behaviour = { coingecko: 'ok', coinbase: 'ok', kraken: 'ok' };
  const quote = { ageMs: 0, ageS: 0 };
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const now = () => clock;
  const calls: string[] = [];
  const fetchFn = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    const name = url.hostname.split('.')[0] as keyof Behaviour;
    calls.push(name);
    const mode = behaviour[name];
    if (mode === 'hang') return new Promise<Response>(() => {});
    if (mode === 'http-500') return new Response('{}', { status: 500 });
    const token = /polygon|POL/.test(url.href) ? 'pol' : 'eth';
    const init = quote.ageS ? { headers: { age: String(quote.ageS) } } : undefined;
    if (name === 'coingecko') {
      const [entry] = fixture(`coingecko-markets-${token}.json`) as object[];
      return Response.json([{ ...entry, last_updated: new Date(clock - quote.ageMs).toISOString() }], init);
    }
    if (name === 'coinbase') return Response.json(fixture(`coinbase-spot-${token}.json`), init);
    if (url.pathname.includes('OHLC')) return new Response('{}', { status: 404 });
    return Response.json(fixture(`kraken-ticker-${token}.json`), init);
  }) as typeof fetch;
  const deps = createTestDeps(
    {
      COINGECKO_API_URL: 'http://coingecko.test',
      COINBASE_API_URL: 'http://coinbase.test',
      KRAKEN_API_URL: 'http://kraken.test',
      UPSTREAM_TIMEOUT_MS: '150',
      PUBLIC_BASE_URL: 'https://gas.test',
    },
    { fetch: fetchFn, now, ...overrides },
  );
  const app = createApp(deps);
  const get = async () => {
    const res = await app.request('/api/eth-price');
    return {
      status: res.status,
      cacheControl: res.headers.get('Cache-Control'),
      lastModified: res.headers.get('Last-Modified'),
      body: (await res.json()) as EthPriceBody & { citation: string; tier: string },
    };
  };
  const allDown = (mode: Mode) => Object.assign(behaviour, { coingecko: mode, coinbase: mode, kraken: mode });
  return { deps, behaviour, quote, calls, get, allDown, now, advance: (ms: number) => (clock += ms) };
}

describe('GET /api/eth-price (service behaviour)', () => {
  it('answers live from the aggregator, then from cache until its refresh point (before 30 s) naming the origin', async () => {
    const t = setup();
    const first = await t.get();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      usd: 1580,
      source: 'aggregator',
      priceSource: 'aggregator',
      tier: 'free',
    });
    expect(first.body.change_24h).toBeCloseTo(-1.78843, 5);
    expect(first.body.sparkline_7d).toHaveLength(168);
    expect(first.body.staleAgeMs).toBeUndefined();
    expect(first.body.citation).toContain(`updated ${first.body.updatedAt}`);
    expect(first.cacheControl).toBe('public, max-age=30, s-maxage=30');
    // The reading is refreshed a sixth of its cadence early, so no instance of a fleet serves it past 30 s.
    t.advance(PRICE_FRESH_MS * (1 - REFRESH_LEAD) - 1);
    const second = await t.get();
    expect(second.body).toMatchObject({ usd: 1580, source: 'cache', priceSource: 'aggregator' });
    expect(second.body.updatedAt).toBe(first.body.updatedAt);
    expect(t.calls).toEqual(['coingecko']);
    t.advance(PRICE_FRESH_MS * REFRESH_LEAD);
    expect((await t.get()).body.source).toBe('aggregator');
  });

  it('coalesces concurrent requests into one upstream read', async () => {
    const t = setup();
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.get()));
    expect(t.calls).toEqual(['coingecko']);
    expect(new Set(answers.map((a) => a.body.usd))).toEqual(new Set([1580]));
  });

  it('keeps the last CoinGecko sparkline when only an exchange answers, and drops it after an hour', async () => {
    const t = setup();
    await t.get();
    t.behaviour.coingecko = 'http-500';
    t.advance(PRICE_FRESH_MS);
    const fromExchange = await t.get();
    expect(fromExchange.body).toMatchObject({ usd: 1579.62, source: 'exchange_a', change_24h: null });
    expect(fromExchange.body.sparkline_7d).toHaveLength(168);
    t.advance(SPARKLINE_MAX_AGE_MS);
    expect((await t.get()).body.sparkline_7d).toEqual([]);
  });

  it('gives an empty sparkline when an exchange answers and CoinGecko never did', async () => {
    const t = setup();
    t.behaviour.coingecko = 'hang';
    t.behaviour.coinbase = 'http-500';
    const { body } = await t.get();
    expect(body).toMatchObject({
      usd: 1580.49,
      source: 'exchange_b',
      priceSource: 'exchange_b',
      sparkline_7d: [],
    });
  });

  it('serves stale-error, then stale-cooldown, with staleAgeMs, while the last good value is young', async () => {
    const t = setup();
    const live = await t.get();
    t.allDown('http-500');
    t.advance(PRICE_FRESH_MS + 5);
    const stale = await t.get();
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ usd: 1580, source: 'stale-error', priceSource: 'aggregator' });
    expect(stale.body.staleAgeMs).toBe(PRICE_FRESH_MS + 5);
    expect(stale.body.updatedAt).toBe(live.body.updatedAt);
    expect(stale.body.sparkline_7d).toHaveLength(168);
    const callsBefore = t.calls.length;
    t.advance(10);
    const cooldown = await t.get();
    expect(cooldown.body).toMatchObject({
      usd: 1580,
      source: 'stale-cooldown',
      staleAgeMs: PRICE_FRESH_MS + 15,
    });
    expect(t.calls.length).toBe(callsBefore);
  });

  it('serves stale-timeout when every source hangs', async () => {
    const t = setup();
    await t.get();
    t.allDown('hang');
    t.advance(PRICE_FRESH_MS);
    expect((await t.get()).body).toMatchObject({ source: 'stale-timeout', usd: 1580 });
  });

  it('answers unavailable (usd null, 200, max-age 30) on a cold start with every source down', async () => {
    const t = setup();
    t.allDown('http-500');
    const cold = await t.get();
    expect(cold.status).toBe(200);
    expect(cold.cacheControl).toBe('public, max-age=30, s-maxage=30');
    expect(cold.body).toMatchObject({
      usd: null,
      change_24h: null,
      sparkline_7d: [],
      priceSource: null,
      source: 'unavailable',
    });
    expect(cold.body.staleAgeMs).toBeUndefined();
    expect((await t.get()).body.source).toBe('unavailable');
  });

  it('never serves a last good value older than 5 minutes', async () => {
    const t = setup();
    await t.get();
    t.allDown('http-500');
    t.advance(LAST_GOOD_MAX_AGE_MS);
    expect((await t.get()).body).toMatchObject({ source: 'stale-error', staleAgeMs: LAST_GOOD_MAX_AGE_MS });
    t.advance(BACKOFF_MAX_MS + 1);
    expect((await t.get()).body).toMatchObject({ source: 'unavailable', usd: null });
  });

  it('recovers to live answers once the back-off is over and a source answers again', async () => {
    const t = setup();
    t.allDown('http-500');
    await t.get();
    Object.assign(t.behaviour, { coingecko: 'ok', coinbase: 'ok', kraken: 'ok' });
    expect((await t.get()).body.source).toBe('unavailable'); // still backing off: nobody asked
    t.advance(BACKOFF_MAX_MS);
    expect((await t.get()).body.source).toBe('aggregator');
  });

  it('survives a last-good store that throws, hangs or holds garbage', async () => {
    const stores = {
      throwing: createFaultyStore('throw'),
      hanging: createFaultyStore('hang'),
      garbage: createFaultyStore('garbage', { value: { usd: 'lots' }, readAt: 1, failure: null }),
    };
    for (const [name, lastGood] of Object.entries(stores)) {
      const t = setup({ lastGood });
      const live = await t.get();
      expect(live.body.source, name).toBe('aggregator');
      t.allDown('http-500');
      t.advance(PRICE_FRESH_MS);
      // The in-process copy still serves as last-known-good when the shared store fails.
      expect((await t.get()).body, name).toMatchObject({ source: 'stale-error', usd: 1580 });
      const cold = setup({ lastGood });
      cold.allDown('hang');
      const answer = await cold.get();
      expect(answer.status, name).toBe(200);
      expect(answer.body.source, name).toBe('unavailable');
      expect(cold.deps.logs.join('\n'), name).toMatch(/shared store unavailable|unreadable shared entry/);
    }
  });

  it('serves POL through the same chain for the L2 endpoint', async () => {
    const t = setup();
    expect(await getTokenPrice(t.deps, 'POL')).toMatchObject({
      token: 'POL',
      usd: 0.4123,
      source: 'aggregator',
    });
    expect(await getTokenPrice(t.deps, 'ETH')).toMatchObject({
      token: 'ETH',
      usd: 1580,
      source: 'aggregator',
    });
    expect(await getTokenPrice(t.deps, 'POL')).toMatchObject({ usd: 0.4123, source: 'cache' });
    t.behaviour.coingecko = 'http-500';
    // POL lives on the L2 answer's 60 s cadence: still cached at 30 s, read again at 60 s.
    t.advance(PRICE_FRESH_MS);
    expect(await getTokenPrice(t.deps, 'POL')).toMatchObject({ usd: 0.4123, source: 'cache' });
    t.advance(POL_FRESH_MS - PRICE_FRESH_MS);
    expect(await getTokenPrice(t.deps, 'POL')).toMatchObject({ usd: 0.41187, source: 'exchange_a' });
  });
});

// SPEC.md decisions 2-3: `updatedAt` and `staleAgeMs` date the quote, not its arrival, and no price whose
// quote is over 5 minutes old is served; the refresh cadence and the `cache` label run on the arrival.
describe("GET /api/eth-price (the quote's own time)", () => {
  const iso = (ms: number) => new Date(ms).toISOString();

  it('dates a CoinGecko price by its last_updated, and serves it as last-known-good until that is 5 minutes old', async () => {
    const t = setup();
    t.quote.ageMs = 100_000;
    const quotedAt = t.now() - 100_000;
    const live = await t.get();
    expect(live.body).toMatchObject({ source: 'aggregator', usd: 1580, updatedAt: iso(quotedAt) });
    expect(live.lastModified).toBe(new Date(quotedAt).toUTCString());
    expect(live.body.citation).toContain(`updated ${iso(quotedAt)}`);
    t.allDown('http-500');
    t.advance(LAST_GOOD_MAX_AGE_MS - 100_000);
    expect((await t.get()).body).toMatchObject({
      source: 'stale-error',
      usd: 1580,
      updatedAt: iso(quotedAt),
      staleAgeMs: LAST_GOOD_MAX_AGE_MS,
    });
    t.advance(1);
    expect((await t.get()).body).toMatchObject({ source: 'unavailable', usd: null });
  });

  it('dates an exchange price by its arrival less the time a cache held it (Age)', async () => {
    const t = setup();
    t.behaviour.coingecko = 'http-500';
    t.quote.ageS = 100;
    const quotedAt = t.now() - 100_000;
    const live = await t.get();
    expect(live.body).toMatchObject({ source: 'exchange_a', usd: 1579.62, updatedAt: iso(quotedAt) });
    expect(live.lastModified).toBe(new Date(quotedAt).toUTCString());
    t.allDown('http-500');
    t.advance(PRICE_FRESH_MS);
    expect((await t.get()).body).toMatchObject({
      source: 'stale-error',
      updatedAt: iso(quotedAt),
      staleAgeMs: PRICE_FRESH_MS + 100_000,
    });
    t.advance(LAST_GOOD_MAX_AGE_MS - 100_000 - PRICE_FRESH_MS + 1);
    expect((await t.get()).body).toMatchObject({ source: 'unavailable', usd: null });
  });

  it("dates a CoinGecko quote by last_updated alone: a cache's Age does not count twice", async () => {
    const t = setup();
    t.quote.ageMs = 170_000;
    t.quote.ageS = 170;
    const quotedAt = t.now() - 170_000;
    expect((await t.get()).body).toMatchObject({ source: 'aggregator', updatedAt: iso(quotedAt) });
  });

  it('refuses a quote over 3 minutes old as live and asks the next source', async () => {
    const t = setup();
    t.quote.ageMs = 4 * 60_000 + 50_000;
    const { body } = await t.get();
    expect(body).toMatchObject({ source: 'exchange_a', usd: 1579.62, updatedAt: iso(t.now()) });
    expect(t.calls).toEqual(['coingecko', 'coinbase']);
    expect(t.deps.logs.join('\n')).toContain('reading is 290 s old');
  });

  it("caches a minute-old quote for the cadence after it arrived, not for the quote's age", async () => {
    const t = setup();
    t.quote.ageMs = 60_000;
    const quotedAt = t.now() - 60_000;
    expect((await t.get()).body.source).toBe('aggregator');
    t.advance(PRICE_FRESH_MS * (1 - REFRESH_LEAD) - 1);
    expect((await t.get()).body).toMatchObject({ source: 'cache', updatedAt: iso(quotedAt) });
    expect(t.calls).toEqual(['coingecko']);
  });
});
