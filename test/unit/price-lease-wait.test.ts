// The ETH and POL prices across instances sharing one store (lib/services/eth-price.ts over
// lib/store/shared-read.ts): an instance that finds another refreshing a price waits for that reading
// within its own deadline, instead of asking every source itself. Timers and the clock are simulated
// together, so the waits are those a real fleet would see, however busy the machine.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { getTokenPrice } from '../../lib/services/eth-price';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import type { PriceToken } from '../../lib/upstream/price-source';
import { loadPriceFixture } from '../fixtures/price/load-fixture';
import { createTestDeps } from '../helpers/deps';

const fixture = (name: string) => loadPriceFixture(name).body;
const now = () => Date.now();

type Host = 'coingecko' | 'coinbase' | 'kraken';
/** `gated`: answers once the test opens the gate; `hang`: never answers. */
type Mode = 'ok' | 'hang' | 'gated';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(Date.parse('2026-01-01T00:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

/** `size` instances (own state each) over one store, with upstreams that follow `behaviour`. */
function fleet(size: number) {
  const behaviour: Record<Host, Mode> = { coingecko: 'ok', coinbase: 'ok', kraken: 'ok' };
  let openGate = () => {};
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  const calls: string[] = [];
  const fetchFn = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    const host = url.hostname.split('.')[0] as Host;
    const token = /polygon|POL/.test(url.href) ? 'pol' : 'eth';
    calls.push(host);
    if (behaviour[host] === 'hang') return new Promise<Response>(() => {});
    if (behaviour[host] === 'gated') await gate;
    if (host === 'coingecko') {
      const [entry] = fixture(`coingecko-markets-${token}.json`) as object[];
      return Response.json([{ ...entry, last_updated: new Date(now()).toISOString() }]);
    }
    if (host === 'coinbase') return Response.json(fixture(`coinbase-spot-${token}.json`));
    if (url.pathname.includes('OHLC')) return new Response('{}', { status: 404 });
    return Response.json(fixture(`kraken-ticker-${token}.json`));
  }) as typeof fetch;
  const store = createMemoryLastGoodStore(now);
  const env = {
    COINGECKO_API_URL: 'http://coingecko.test',
    COINBASE_API_URL: 'http://coinbase.test',
    KRAKEN_API_URL: 'http://kraken.test',
    UPSTREAM_TIMEOUT_MS: '2500',
  };
  const instances = Array.from({ length: size }, () =>
    createTestDeps(env, { fetch: fetchFn, now, lastGood: store }),
  );
  const count = (host: Host) => calls.filter((call) => call === host).length;
  return { behaviour, store, instances, openGate, count };
}

/** The store as `deps` sees it, calling `onRefused` when a lease it asks for is held by another. */
function onLeaseRefused(store: LastGoodStore, onRefused: () => void): LastGoodStore {
  return {
    ...store,
    lease: async (key, ms, entryKey) => {
      const lease = await store.lease(key, ms, entryKey);
      if (!lease.taken) onRefused();
      return lease;
    },
  };
}

it.each<[PriceToken, number]>([
  ['ETH', 1580],
  ['POL', 0.4123],
])(
  '%s: an instance that meets the lease holder on a cold start waits for its reading',
  async (token, usd) => {
    const f = fleet(2);
    const [holder, waiter] = f.instances;
    if (!holder || !waiter) throw new Error('no fleet');
    // CoinGecko answers the holder once the other instance has found the lease taken.
    f.behaviour.coingecko = 'gated';
    waiter.lastGood = onLeaseRefused(waiter.lastGood, f.openGate);
    const first = getTokenPrice(holder, token);
    const second = getTokenPrice(waiter, token);
    await vi.runAllTimersAsync();
    expect(await first).toMatchObject({ usd, source: 'aggregator' });
    expect(await second).toMatchObject({ usd, source: 'cache', priceSource: 'aggregator' });
    // Until 2026-11-28 a POL waiter's wait ended before it began: it read CoinGecko itself.
    expect(f.count('coingecko')).toBe(1);
    expect(waiter.logs.join('\n')).not.toContain('lease holder late');
  },
);
