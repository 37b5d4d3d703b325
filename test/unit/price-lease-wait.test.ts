// The ETH and POL prices across instances sharing one store (lib/services/eth-price.ts over
// lib/store/shared-read.ts): an instance that finds another refreshing a price waits for that reading
// within its own deadline, instead of asking every source itself. Timers and the clock are simulated
// together, so the waits are those a real fleet would see, however busy the machine.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { getTokenPrice, priceRetryAfterSeconds } from '../../lib/services/eth-price';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import type { PriceToken } from '../../lib/upstream/price-source';
import { loadPriceFixture } from '../fixtures/price/load-fixture';
import { createTestDeps } from '../helpers/deps';

const fixture = (name: string) => loadPriceFixture(name).body;
const now = () => Date.now();

type Host = 'coingecko' | 'coinbase' | 'kraken';
/** `gated`: answers once the test opens the gate; `failing`: then answers HTTP 500; `hang`: never answers. */
type Mode = 'ok' | 'hang' | 'gated' | 'failing';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(Date.parse('2026-01-01T00:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * `size` instances (own state each) over one store, with upstreams that follow `behaviour`; instance
 * i's clock runs `clockOffsetsMs[i]` (default 0) off the true time. `timeoutMs`: UPSTREAM_TIMEOUT_MS.
 */
function fleet(size: number, clockOffsetsMs: number[] = [], timeoutMs = 2500) {
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
    if (behaviour[host] === 'gated' || behaviour[host] === 'failing') await gate;
    if (behaviour[host] === 'failing') return new Response('Internal Server Error', { status: 500 });
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
    UPSTREAM_TIMEOUT_MS: String(timeoutMs),
  };
  const instances = Array.from({ length: size }, (_, i) =>
    createTestDeps(env, { fetch: fetchFn, now: () => now() + (clockOffsetsMs[i] ?? 0), lastGood: store }),
  );
  const count = (host: Host) => calls.filter((call) => call === host).length;
  return { behaviour, store, instances, openGate, count };
}

/** The store as `deps` sees it, calling `onRefused` when a lease it asks for is held by another. */
function onLeaseRefused(store: LastGoodStore, onRefused: () => void): LastGoodStore {
  return {
    ...store,
    lease: async (key, ms, entryKey, token) => {
      const lease = await store.lease(key, ms, entryKey, token);
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

/** Stores the fleet's ETH entry: a reading `ageMs` old, with `failure` (a past one: not backing off). */
async function seedEth(store: LastGoodStore, ageMs: number, failure: object | null = null) {
  const readAt = now() - ageMs;
  const value = {
    usd: 1500,
    change24h: 1,
    priceSource: 'aggregator',
    readAt,
    quotedAt: readAt,
    sparkline: null,
  };
  await store.set('price:v2:ETH', { value, readAt, failure }, 86_400_000);
}

it('ETH: instances that meet the lease holder give it its whole budget while CoinGecko hangs', async () => {
  const f = fleet(8);
  await seedEth(f.store, 40_000); // expired: the others cannot serve it as fresh meanwhile
  f.behaviour.coingecko = 'hang';
  const [holder, ...others] = f.instances;
  if (!holder) throw new Error('no fleet');
  const first = getTokenPrice(holder, 'ETH');
  const rest = Promise.all(others.map((deps) => getTokenPrice(deps, 'ETH')));
  await vi.runAllTimersAsync();
  // The holder's CoinGecko attempt times out after about 1.2 s, and Coinbase answers.
  expect(await first).toMatchObject({ usd: 1579.62, source: 'exchange_a' });
  for (const price of await rest) expect(price).toMatchObject({ usd: 1579.62, source: 'cache' });
  // Until 2026-11-28 each of them stopped waiting after 1 s and read CoinGecko, then Coinbase, itself.
  expect([f.count('coingecko'), f.count('coinbase')]).toEqual([1, 1]);
});

it('ETH: with every source hanging, they wait for the holder to give up, serve its timeout, then back off with the fleet', async () => {
  const f = fleet(8);
  const quotedAt = now() - 60_000;
  await seedEth(f.store, 60_000, { kind: 'timeout', retryAt: now() - 1, count: 2 });
  Object.assign(f.behaviour, { coingecko: 'hang', coinbase: 'hang', kraken: 'hang' });
  const [holder, ...others] = f.instances;
  if (!holder) throw new Error('no fleet');
  const first = getTokenPrice(holder, 'ETH');
  const rest = Promise.all(others.map((deps) => getTokenPrice(deps, 'ETH')));
  await vi.runAllTimersAsync();
  // The holder spends its 3.5 s on the three sources and shares the failure with its retry time.
  expect(await first).toMatchObject({ usd: 1500, source: 'stale-timeout', priceSource: 'aggregator' });
  // The others waited that long for it: the live read ran out of time for them too. Until 2026-11-28
  // they said `stale-cooldown`, as if served at once during a back-off.
  for (const price of await rest) {
    expect(price).toMatchObject({ usd: 1500, source: 'stale-timeout', priceSource: 'aggregator' });
    // Counted from the quote's time: 60 s before the request, and the wait (under 4 s) since.
    expect(price.updatedAt).toBe(quotedAt);
    expect(price.staleAgeMs).toBeGreaterThan(60_000);
    expect(price.staleAgeMs).toBeLessThan(64_000);
  }
  // One attempt at each source for the fleet (Kraken's is two requests: Ticker and OHLC).
  expect([f.count('coingecko'), f.count('coinbase'), f.count('kraken')]).toEqual([1, 1, 2]);
  // Within the back-off, a request is served at once, asking nothing: that is `stale-cooldown`.
  vi.advanceTimersByTime(1_000);
  for (const deps of [holder, ...others])
    expect(await getTokenPrice(deps, 'ETH')).toMatchObject({ usd: 1500, source: 'stale-cooldown' });
  expect([f.count('coingecko'), f.count('coinbase'), f.count('kraken')]).toEqual([1, 1, 2]);
});

it("ETH: with every source hanging, the holder's failure is shared before its lease runs out (UPSTREAM_TIMEOUT_MS 1200)", async () => {
  // A 3.4-s lease (2 × 1.2 s + 1 s) against a 4-s request deadline: the sources share what is left of
  // the lease less the write's second (2.4 s), not the request's 3.5 s.
  const f = fleet(2, [], 1_200);
  await seedEth(f.store, 40_000);
  Object.assign(f.behaviour, { coingecko: 'hang', coinbase: 'hang', kraken: 'hang' });
  const [holder, late] = f.instances;
  if (!holder || !late) throw new Error('no fleet');
  const first = getTokenPrice(holder, 'ETH');
  // Just after the lease would have run out (a request's 4-s deadline still ahead of the holder).
  await vi.advanceTimersByTimeAsync(3_450);
  const asked = f.count('coingecko') + f.count('coinbase') + f.count('kraken');
  const second = getTokenPrice(late, 'ETH');
  await vi.runAllTimersAsync();
  expect(await first).toMatchObject({ usd: 1500, source: 'stale-timeout' });
  // It finds the holder's failure backing off, and asks nothing. Until 2026-11-28 the holder was still
  // asking Kraken (to 3.5 s in): this instance took the lease it had outlasted and asked every source.
  expect(await second).toMatchObject({ usd: 1500, source: 'stale-cooldown' });
  expect(f.count('coingecko') + f.count('coinbase') + f.count('kraken')).toBe(asked);
});

it('ETH: with every source answering errors, those that waited for the holder serve stale-error', async () => {
  const f = fleet(8);
  await seedEth(f.store, 40_000);
  // The sources answer HTTP 500 once another instance has found the lease taken, so every one of
  // them waits for the holder's attempt rather than find its failure already written.
  Object.assign(f.behaviour, { coingecko: 'failing', coinbase: 'failing', kraken: 'failing' });
  const [holder, ...others] = f.instances;
  if (!holder) throw new Error('no fleet');
  for (const deps of others) deps.lastGood = onLeaseRefused(deps.lastGood, f.openGate);
  const first = getTokenPrice(holder, 'ETH');
  const rest = Promise.all(others.map((deps) => getTokenPrice(deps, 'ETH')));
  await vi.runAllTimersAsync();
  expect(await first).toMatchObject({ usd: 1500, source: 'stale-error', priceSource: 'aggregator' });
  // Until 2026-11-28 they said `stale-cooldown`.
  for (const price of await rest)
    expect(price).toMatchObject({ usd: 1500, source: 'stale-error', priceSource: 'aggregator' });
  expect([f.count('coingecko'), f.count('coinbase')]).toEqual([1, 1]);
  // A fresh instance finds the fleet backing off and serves the entry at once.
  const late = createTestDeps(
    {},
    { fetch: () => Promise.reject(new Error('not asked')), now, lastGood: f.store },
  );
  expect(await getTokenPrice(late, 'ETH')).toMatchObject({ usd: 1500, source: 'stale-cooldown' });
});

it.each([
  [
    'the last good reading as stale-timeout',
    40_000,
    { usd: 1500, source: 'stale-timeout', staleAgeMs: 43_750 },
  ],
  ['no price on a cold start', null, { usd: null, source: 'unavailable' }],
])(
  'ETH: when the lease holder died, serves %s at the end of the wait, without a read',
  async (_, ageMs, served) => {
    const f = fleet(1);
    const [deps] = f.instances;
    if (!deps) throw new Error('no fleet');
    if (ageMs !== null) await seedEth(f.store, ageMs);
    await f.store.lease('price:v2:ETH:lease', 6_000, 'price:v2:ETH', 'dead'); // taken, and never written or let go
    const price = getTokenPrice(deps, 'ETH');
    await vi.runAllTimersAsync();
    // It waited until a quarter second before its 4 s deadline.
    expect(await price).toMatchObject(served);
    expect(f.count('coingecko') + f.count('coinbase') + f.count('kraken')).toBe(0);
    expect(deps.logs.join('\n')).toContain('lease holder late; serving the entry as it is');
  },
);

it('ETH: with no price and no failure on record, dates the answer by the end of its wait, not by each request', async () => {
  const f = fleet(1);
  const [deps] = f.instances;
  if (!deps) throw new Error('no fleet');
  await f.store.lease('price:v2:ETH:lease', 6_000, 'price:v2:ETH', 'dead'); // a holder that died
  const startedAt = now();
  const price = getTokenPrice(deps, 'ETH');
  await vi.runAllTimersAsync();
  // Nothing failed that it knows of: the answer is dated by when it last looked at the entry, the end
  // of its wait (a quarter second before its 4 s deadline), and stays so while it holds that look
  // (a second). Until 2026-11-28 every answer was dated by its own request.
  const served = await price;
  expect(served).toMatchObject({ usd: null, source: 'unavailable', updatedAt: startedAt + 3_750 });
  // Nor when the next attempt comes: a caller is told about one refresh cadence, as before 2026-11-28.
  expect(priceRetryAfterSeconds(served, now())).toBe(30);
  vi.advanceTimersByTime(500);
  const again = await getTokenPrice(deps, 'ETH');
  expect(again.updatedAt).toBe(startedAt + 3_750);
  expect(again).toBe(served);
});

it("ETH: dates no price by the fleet's last failed attempt, told from an entry of the release before", async () => {
  const f = fleet(2);
  // The third failure in a row, 5 s ago, as the release before wrote it: a retry time and a count (its
  // back-off 20 s), no time of its own.
  const failedAt = now() - 5_000;
  await f.store.set(
    'price:v2:ETH',
    { value: null, readAt: null, failure: { kind: 'error', retryAt: failedAt + 20_000, count: 3 } },
    86_400_000,
  );
  // Each is told the time left of the fleet's back-off, 15 s, then 12 s (up to a second more, until
  // it looks again), not 30 s as until 2026-11-28.
  for (const [i, deps] of f.instances.entries()) {
    const served = await getTokenPrice(deps, 'ETH');
    expect(served).toMatchObject({ usd: null, source: 'unavailable', updatedAt: failedAt });
    expect([15 - 3 * i, 16 - 3 * i]).toContain(priceRetryAfterSeconds(served, now()));
    vi.advanceTimersByTime(3_000);
  }
  expect(f.count('coingecko') + f.count('coinbase') + f.count('kraken')).toBe(0);
});

it('ETH: never dates no price after it looked, whatever the clock of the instance that failed', async () => {
  const f = fleet(1);
  const [deps] = f.instances;
  if (!deps) throw new Error('no fleet');
  // A peer whose clock runs 80 s fast failed its first attempt: by its clock, 80 s from now.
  await f.store.set(
    'price:v2:ETH',
    { value: null, readAt: null, failure: { kind: 'error', retryAt: now() + 85_000, count: 1 } },
    86_400_000,
  );
  const lookedAt = now();
  const served = await getTokenPrice(deps, 'ETH');
  expect(served).toMatchObject({ usd: null, source: 'unavailable', updatedAt: lookedAt });
  // Nor is a caller told to wait longer than the longest back-off, a minute.
  expect(priceRetryAfterSeconds(served, now())).toBe(60);
  vi.advanceTimersByTime(500);
  expect(await getTokenPrice(deps, 'ETH')).toBe(served);
  expect(f.count('coingecko') + f.count('coinbase') + f.count('kraken')).toBe(0);
});

it('ETH: an instance whose clock runs 2 min slow reads for itself, not wait for an entry it cannot use', async () => {
  const f = fleet(2, [0, -120_000]);
  const [holder, slow] = f.instances;
  if (!holder || !slow) throw new Error('no fleet');
  f.behaviour.coingecko = 'gated';
  slow.lastGood = onLeaseRefused(slow.lastGood, f.openGate);
  const first = getTokenPrice(holder, 'ETH');
  const second = getTokenPrice(slow, 'ETH');
  await vi.runAllTimersAsync();
  expect(await first).toMatchObject({ usd: 1580, source: 'aggregator' });
  // The holder's entry is two minutes ahead of its clock: out of range, never taken. Until 2026-11-28
  // it polled until its deadline for it and answered unavailable, with every source healthy.
  expect(await second).toMatchObject({ usd: 1580, source: 'aggregator' });
  expect(slow.logs.join('\n')).toContain('the new entry is unusable here');
  // Its own reading, stamped two minutes early, is not written over the holder's.
  const stored = (await f.store.get('price:v2:ETH')) as { readAt: number };
  expect(stored.readAt).toBeGreaterThan(now() - 60_000);
});
