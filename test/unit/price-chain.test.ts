import { describe, expect, it } from 'vitest';
import { BACKOFF_BASE_MS, readPriceChain } from '../../lib/upstream/price-chain';
import { loadPriceFixture } from '../fixtures/price/load-fixture';
import { createTestDeps } from '../helpers/deps';

const fixture = (name: string) => loadPriceFixture(name).body;

type Behaviour = 'ok' | 'hang' | 'http-500' | 'garbage';
const ENV = {
  COINGECKO_API_URL: 'http://coingecko.test/api/v3',
  COINBASE_API_URL: 'http://coinbase.test',
  KRAKEN_API_URL: 'http://kraken.test',
  UPSTREAM_TIMEOUT_MS: '200',
};

/** A fetch that plays each upstream's behaviour and records which hosts were asked, in order. */
function scriptedFetch(behaviour: Record<'coingecko' | 'coinbase' | 'kraken', Behaviour>, now: () => number) {
  const asked: string[] = [];
  const fetchFn = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    const name = url.hostname.split('.')[0] as keyof typeof behaviour;
    asked.push(`${name}${url.pathname.includes('OHLC') ? ':ohlc' : ''}`);
    const mode = behaviour[name];
    if (mode === 'hang') return new Promise<Response>(() => {});
    if (mode === 'http-500') return new Response('{"error":"internal"}', { status: 500 });
    if (mode === 'garbage') return new Response('<html>', { status: 200 });
    if (name === 'coingecko') {
      const [entry] = fixture('coingecko-markets-eth.json') as object[];
      return Response.json([{ ...entry, last_updated: new Date(now()).toISOString() }]);
    }
    if (name === 'coinbase') return Response.json(fixture('coinbase-spot-eth.json'));
    if (url.pathname.includes('OHLC')) return Response.json({ error: [], result: { XETHZUSD: [], last: 0 } });
    return Response.json(fixture('kraken-ticker-eth.json'));
  }) as typeof fetch;
  return { fetchFn, asked };
}

function setup(behaviour: Record<'coingecko' | 'coinbase' | 'kraken', Behaviour>) {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const now = () => clock;
  const script = scriptedFetch(behaviour, now);
  const deps = createTestDeps(ENV, { fetch: script.fetchFn, now });
  return { deps, asked: script.asked, advance: (ms: number) => (clock += ms) };
}

describe('price fallback chain', () => {
  it('answers from the aggregator first, with its sparkline', async () => {
    const { deps, asked } = setup({ coingecko: 'ok', coinbase: 'ok', kraken: 'ok' });
    const outcome = await readPriceChain(deps, 'ETH', deps.now() + 4000);
    expect(outcome).toMatchObject({ ok: true, source: 'aggregator', reading: { usd: 1580 } });
    expect(outcome.ok && outcome.reading.sparkline7d).toHaveLength(168);
    expect(asked).toEqual(['coingecko']);
  });

  it('falls back to exchange_a, then exchange_b', async () => {
    const a = setup({ coingecko: 'http-500', coinbase: 'ok', kraken: 'ok' });
    expect(await readPriceChain(a.deps, 'ETH', a.deps.now() + 4000)).toMatchObject({
      ok: true,
      source: 'exchange_a',
    });
    const b = setup({ coingecko: 'garbage', coinbase: 'http-500', kraken: 'ok' });
    const outcome = await readPriceChain(b.deps, 'ETH', b.deps.now() + 4000);
    expect(outcome).toMatchObject({
      ok: true,
      source: 'exchange_b',
      reading: { usd: 1580.49, change24h: null },
    });
    expect(b.asked).toContain('kraken:ohlc');
  });

  it('reports error when every source answers badly, timeout when one of them hung', async () => {
    const errors = setup({ coingecko: 'http-500', coinbase: 'garbage', kraken: 'http-500' });
    expect(await readPriceChain(errors.deps, 'ETH', errors.deps.now() + 4000)).toEqual({
      ok: false,
      kind: 'error',
    });
    const hung = setup({ coingecko: 'hang', coinbase: 'hang', kraken: 'hang' });
    expect(await readPriceChain(hung.deps, 'ETH', hung.deps.now() + 4000)).toEqual({
      ok: false,
      kind: 'timeout',
    });
    const mixed = setup({ coingecko: 'hang', coinbase: 'http-500', kraken: 'garbage' });
    expect(await readPriceChain(mixed.deps, 'ETH', mixed.deps.now() + 4000)).toEqual({
      ok: false,
      kind: 'timeout',
    });
    expect(errors.deps.logs.join('\n')).toMatch(/price source failed/);
  });

  it('skips sources in back-off, asks none when all are, and asks again once back-off ends', async () => {
    const { deps, asked, advance } = setup({
      coingecko: 'http-500',
      coinbase: 'http-500',
      kraken: 'http-500',
    });
    await readPriceChain(deps, 'ETH', deps.now() + 4000);
    expect(asked).toEqual(['coingecko', 'coinbase', 'kraken:ohlc', 'kraken']);
    asked.length = 0;
    expect(await readPriceChain(deps, 'ETH', deps.now() + 4000)).toEqual({ ok: false, kind: 'cooldown' });
    expect(asked).toEqual([]);
    advance(BACKOFF_BASE_MS);
    await readPriceChain(deps, 'ETH', deps.now() + 4000);
    expect(asked).toHaveLength(4);
  });

  it('ends a back-off at once when the clock is set back, instead of as long as it went back', async () => {
    const { deps, asked, advance } = setup({
      coingecko: 'http-500',
      coinbase: 'http-500',
      kraken: 'http-500',
    });
    await readPriceChain(deps, 'ETH', deps.now() + 4000);
    asked.length = 0;
    advance(-3_600_000);
    await readPriceChain(deps, 'ETH', deps.now() + 4000);
    expect(asked).toHaveLength(4);
  });

  it('keeps back-off per token: a failing ETH market does not bench POL', async () => {
    const { deps, asked } = setup({ coingecko: 'http-500', coinbase: 'http-500', kraken: 'http-500' });
    await readPriceChain(deps, 'ETH', deps.now() + 4000);
    asked.length = 0;
    await readPriceChain(deps, 'POL', deps.now() + 4000);
    expect(asked[0]).toBe('coingecko');
  });

  it('shares the deadline so every source gets a turn when the first ones hang', async () => {
    const { deps, asked } = setup({ coingecko: 'hang', coinbase: 'hang', kraken: 'ok' });
    const outcome = await readPriceChain(deps, 'ETH', deps.now() + 4000);
    expect(outcome).toMatchObject({ ok: true, source: 'exchange_b' });
    expect(asked).toEqual(['coingecko', 'coinbase', 'kraken:ohlc', 'kraken']);
  });

  it('does not ask a source when the deadline leaves it no realistic time', async () => {
    const { deps, asked } = setup({ coingecko: 'ok', coinbase: 'ok', kraken: 'ok' });
    expect(await readPriceChain(deps, 'ETH', deps.now() + 120)).toEqual({ ok: false, kind: 'timeout' });
    expect(asked).toEqual([]);
  });
});
