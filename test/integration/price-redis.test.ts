import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import type { EthPriceBody } from '../../lib/schemas/eth-price';
import { createLastGoodStore } from '../../lib/store/create-last-good';
import { createUpstashLastGoodStore } from '../../lib/store/upstash-last-good';
import { loadPriceFixture } from '../fixtures/price/load-fixture';
import { createTestDeps } from '../helpers/deps';
import { type RedisServer, startRedisServer } from './helpers/redis-server';
import { type BridgeFault, startUpstashBridge, type UpstashBridge } from './helpers/upstash-bridge';

const KEY = 'gas-fee-api:shared:price:v2:ETH';

/** Price upstreams played in-process (this file is about Redis): all healthy, or all failing. */
function sources(state: { down: boolean }) {
  return (async (input: string | URL | Request) => {
    if (state.down) return new Response('{"error":"unavailable"}', { status: 503 });
    const url = new URL(String(input));
    if (url.hostname === 'coingecko.test') {
      const [entry] = loadPriceFixture<object[]>('coingecko-markets-eth.json').body;
      return Response.json([{ ...entry, last_updated: new Date().toISOString() }]);
    }
    if (url.hostname === 'coinbase.test')
      return Response.json(loadPriceFixture('coinbase-spot-eth.json').body);
    return Response.json(loadPriceFixture('kraken-ticker-eth.json').body);
  }) as typeof fetch;
}

/** A fresh app instance (own cache, own back-off state) over the given Upstash endpoint. */
function instance(upstash: { url: string; token: string }, state: { down: boolean }, now = Date.now) {
  const deps = createTestDeps(
    {
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN: upstash.token,
      COINGECKO_API_URL: 'http://coingecko.test',
      COINBASE_API_URL: 'http://coinbase.test',
      KRAKEN_API_URL: 'http://kraken.test',
      UPSTREAM_TIMEOUT_MS: '300',
      PUBLIC_BASE_URL: 'https://gas.test',
    },
    { fetch: sources(state), now },
  );
  deps.lastGood = createLastGoodStore(deps.config);
  const app = createApp(deps);
  return {
    deps,
    async get() {
      const res = await app.request('/api/eth-price');
      return { status: res.status, etag: res.headers.get('ETag'), body: (await res.json()) as EthPriceBody };
    },
    /** A conditional GET: its status and tag. */
    async getIfNoneMatch(etag: string) {
      const res = await app.request('/api/eth-price', { headers: { 'If-None-Match': etag } });
      return { status: res.status, etag: res.headers.get('ETag') };
    },
  };
}

describe('last-known-good price in Redis (Upstash REST)', () => {
  let redis: RedisServer;
  let bridge: UpstashBridge;

  beforeAll(async () => {
    redis = await startRedisServer();
    bridge = await startUpstashBridge(redis.port);
  });
  afterAll(async () => {
    await bridge?.close();
    await redis?.stop();
  });

  it('round-trips a document through @upstash/redis, with an expiry, and takes a lease once', async () => {
    const store = createUpstashLastGoodStore({ url: bridge.url, token: bridge.token, timeoutMs: 1000 });
    await store.set('roundtrip', { usd: 1234.5, nested: [1, 2] }, 60_000);
    expect(await store.get('roundtrip')).toEqual({ usd: 1234.5, nested: [1, 2] });
    expect(await store.get('absent')).toBeNull();
    const ttl = await redis.command('PTTL', 'gas-fee-api:shared:roundtrip');
    expect(typeof ttl === 'number' && ttl > 0 && ttl <= 60_000).toBe(true);
    const entry = { usd: 1234.5, nested: [1, 2] };
    expect(await store.lease('roundtrip:lease', 5_000, 'roundtrip', 'a')).toEqual({ taken: true, entry });
    expect(await store.lease('roundtrip:lease', 5_000, 'roundtrip', 'b')).toEqual({ taken: false, entry });
    await store.set('roundtrip', { usd: 1 }, 60_000, {
      releaseLease: { key: 'roundtrip:lease', token: 'a' },
    });
    expect(await redis.command('EXISTS', 'gas-fee-api:shared:roundtrip:lease')).toBe(0);
    expect((await store.lease('roundtrip:lease', 5_000, 'roundtrip', 'c')).entry).toEqual({ usd: 1 });
    await store.release('roundtrip:lease', 'c');
    expect(await redis.command('EXISTS', 'gas-fee-api:shared:roundtrip:lease')).toBe(0);
  });

  it("lets go of a lease only under its holder's token: a holder whose lease ran out leaves the next one's", async () => {
    const store = createUpstashLastGoodStore({ url: bridge.url, token: bridge.token, timeoutMs: 1000 });
    const lease = 'gas-fee-api:shared:token:lease';
    await redis.command('DEL', lease, 'gas-fee-api:shared:token', 'gas-fee-api:shared:token:read-at');
    expect((await store.lease('token:lease', 5_000, 'token', 'first')).taken).toBe(true);
    await redis.command('DEL', lease); // the first holder's lease runs out while it is still reading
    expect((await store.lease('token:lease', 5_000, 'token', 'second')).taken).toBe(true);
    // The first holder's write lands late, then it lets go: neither frees the second holder's lease
    // (until 2026-11-28 the script deleted whatever lease was there, and a third instance read too).
    const entry = { value: 1, readAt: 1_795_797_910_000, failure: null };
    const first = { key: 'token:lease', token: 'first' };
    expect(await store.set('token', entry, 60_000, { releaseLease: first })).toEqual({ stored: true });
    await store.release('token:lease', 'first');
    expect(await redis.command('GET', lease)).toBe('second');
    expect((await store.lease('token:lease', 5_000, 'token', 'third')).taken).toBe(false);
    // The second holder's own write lets go of it.
    const second = { key: 'token:lease', token: 'second' };
    await store.set('token', { ...entry, readAt: entry.readAt + 1 }, 60_000, { releaseLease: second });
    expect(await redis.command('EXISTS', lease)).toBe(0);
  });

  it('keeps a stored newer reading: a write with an older readAt answers with it and stores nothing', async () => {
    const store = createUpstashLastGoodStore({ url: bridge.url, token: bridge.token, timeoutMs: 1000 });
    await redis.command('DEL', 'gas-fee-api:shared:newer', 'gas-fee-api:shared:newer:read-at');
    const newer = { value: 2, readAt: 1_795_797_910_000, failure: null };
    expect(await store.set('newer', newer, 60_000)).toEqual({ stored: true });
    // A failure record for an older reading, from a refresh that began before: kept out, lease released.
    await store.lease('newer:lease', 5_000, 'newer', 'holder');
    const older = {
      value: 1,
      readAt: newer.readAt - 60_000,
      failure: { kind: 'timeout', retryAt: 1, count: 1 },
    };
    expect(
      await store.set('newer', older, 60_000, { releaseLease: { key: 'newer:lease', token: 'holder' } }),
    ).toEqual({
      stored: false,
      kept: newer,
    });
    expect(await redis.command('EXISTS', 'gas-fee-api:shared:newer:lease')).toBe(0);
    expect(await store.get('newer')).toEqual(newer);
    // The same reading with a failure record, and a newer one, are stored.
    const failed = { ...newer, failure: { kind: 'error', retryAt: 1, count: 1 } };
    expect(await store.set('newer', failed, 60_000)).toEqual({ stored: true });
    expect(await store.get('newer')).toEqual(failed);
    const latest = { value: 3, readAt: newer.readAt + 1, failure: null };
    expect(await store.set('newer', latest, 60_000)).toEqual({ stored: true });
    expect(await store.get('newer')).toEqual(latest);
    // A stored reading later than the writer finds plausible (a clock running ahead wrote it) is replaced.
    const fixed = { value: 4, readAt: newer.readAt - 1_000, failure: null };
    expect(await store.set('newer', fixed, 60_000, { plausibleUntil: newer.readAt })).toEqual({
      stored: true,
    });
    expect(await store.get('newer')).toEqual(fixed);
    const ttl = await redis.command('PTTL', 'gas-fee-api:shared:newer:read-at');
    expect(typeof ttl === 'number' && ttl > 0 && ttl <= 60_000).toBe(true);
  });

  it('replaces a stored entry the writer found unreadable, and only that one (unreadableAt)', async () => {
    const store = createUpstashLastGoodStore({ url: bridge.url, token: bridge.token, timeoutMs: 1000 });
    await redis.command('DEL', 'gas-fee-api:shared:unreadable', 'gas-fee-api:shared:unreadable:read-at');
    const unreadable = { value: 'another shape', readAt: 1_795_797_910_000, failure: null };
    expect(await store.set('unreadable', unreadable, 60_000)).toEqual({ stored: true });
    const failure = { value: null, readAt: null, failure: { kind: 'error', retryAt: 1, count: 1 } };
    // A failure record carries no reading: the stored read time counts as newer...
    expect(await store.set('unreadable', failure, 60_000)).toEqual({ stored: false, kept: unreadable });
    // ...unless it is that of the document the writer could not read; another read time still wins.
    const other = { unreadableAt: unreadable.readAt - 1 };
    expect(await store.set('unreadable', failure, 60_000, other)).toEqual({
      stored: false,
      kept: unreadable,
    });
    const seen = { unreadableAt: unreadable.readAt };
    expect(await store.set('unreadable', failure, 60_000, seen)).toEqual({ stored: true });
    expect(await store.get('unreadable')).toEqual(failure);
  });

  it('shares a failed refresh over an unreadable entry with a recent read time: one attempt for the fleet', async () => {
    // As a deploy whose price record had no `sparkline` wrote it, through the script (so with its read-at).
    const readAt = Date.now() - 20_000;
    const writer = createUpstashLastGoodStore({ url: bridge.url, token: bridge.token, timeoutMs: 1000 });
    const value = { usd: 1580, change24h: 1, priceSource: 'aggregator', readAt };
    await redis.command('DEL', KEY, `${KEY}:read-at`);
    await writer.set('price:v2:ETH', { value, readAt, failure: null }, 60_000);
    const fleet = Array.from({ length: 6 }, () => instance(bridge, { down: true }));
    const asked = fleet.map((member) => {
      let calls = 0;
      const fetchFn = member.deps.fetch;
      member.deps.fetch = (input, init) => {
        calls += 1;
        return fetchFn(input, init);
      };
      return () => calls;
    });
    for (const member of fleet) expect((await member.get()).body.source).toBe('unavailable');
    // The first instance tried every source (Kraken: Ticker and OHLC) and stored the failure over the
    // unreadable entry; the others backed off with it (until 2026-11-28 every one of them read them all).
    expect(asked.map((calls) => calls())).toEqual([4, 0, 0, 0, 0, 0]);
    const stored = JSON.parse(String(await redis.command('GET', KEY)));
    expect(stored).toMatchObject({ value: null, readAt: null, failure: { kind: 'error', count: 1 } });
    await redis.command('DEL', KEY, `${KEY}:read-at`); // the next tests start without the back-off
  });

  it('sends each command once: a lease whose answer was lost is not sent again (it would read as taken by another)', async () => {
    const store = createUpstashLastGoodStore({ url: bridge.url, token: bridge.token, timeoutMs: 1000 });
    await redis.command('DEL', 'gas-fee-api:shared:once:lease');
    const before = bridge.commands.length;
    bridge.fault('lost-answer');
    try {
      await expect(store.lease('once:lease', 5_000, 'once', 'once')).rejects.toThrow();
    } finally {
      bridge.fault(null);
    }
    const sent = bridge.commands.slice(before).filter((command) => command[0]?.toUpperCase() === 'SET');
    // The client's `retry: false` still made two attempts (@upstash/redis 1.39 loops attempts + 1).
    expect(sent).toHaveLength(1);
    await store.release('once:lease', 'once');
  });

  it('serves a value read by one instance to a fresh instance from the shared entry, without a read', async () => {
    const writer = instance(bridge, { down: false });
    const live = await writer.get();
    expect(live.body).toMatchObject({ source: 'aggregator', usd: 1580 });
    expect(await redis.command('EXISTS', KEY)).toBe(1);

    // Every source is down for the second instance: it never asks them, the shared entry is fresh.
    const reader = instance(bridge, { down: true });
    const shared = await reader.get();
    expect(shared.status).toBe(200);
    expect(shared.body).toMatchObject({ usd: 1580, priceSource: 'aggregator', source: 'cache' });
    expect(shared.body.updatedAt).toBe(live.body.updatedAt);
    expect(shared.body.sparkline_7d).toEqual(live.body.sparkline_7d);
    expect(shared.body.staleAgeMs).toBeUndefined();
  });

  it('serves the shared entry as stale to an instance whose refresh fails', async () => {
    const writer = instance(bridge, { down: false });
    const live = await writer.get();
    // The entry is due: a second instance, a minute later, takes the lease and every source fails.
    const reader = instance(bridge, { down: true }, () => Date.now() + 60_000);
    const stale = await reader.get();
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ usd: 1580, priceSource: 'aggregator', source: 'stale-error' });
    expect(stale.body.updatedAt).toBe(live.body.updatedAt);
    expect(stale.body.staleAgeMs).toBeGreaterThanOrEqual(60_000);
    // A third instance does not ask the failing sources again: it backs off with the fleet.
    const third = instance(bridge, { down: true }, () => Date.now() + 61_000);
    expect((await third.get()).body.source).toBe('stale-cooldown');
  });

  it("dates the fleet's no-price answer by its failed attempt: one answer and tag on every instance through the back-off", async () => {
    await redis.command('DEL', KEY, `${KEY}:read-at`);
    const attemptAt = Date.now();
    const tried = instance(bridge, { down: true }, () => attemptAt);
    const first = await tried.get();
    expect(first.body).toMatchObject({ usd: null, source: 'unavailable' });
    expect(first.body.updatedAt).toBe(new Date(attemptAt).toISOString());
    // The entry holds no time of the failure: its retry time and count say it (5 s after the first).
    const stored = JSON.parse(String(await redis.command('GET', KEY)));
    expect(stored.failure).toEqual({ kind: 'error', retryAt: attemptAt + 5_000, count: 1 });
    // Other instances, 2 and 3 s later, within the back-off: they ask nothing and serve the same
    // answer, so the first's tag gets a 304 from any of them. Until 2026-11-28 each dated it by its
    // own request.
    const later = instance(bridge, { down: true }, () => attemptAt + 2_000);
    const second = await later.get();
    expect(second.body).toEqual(first.body);
    expect(second.etag).toBe(first.etag);
    const third = instance(bridge, { down: true }, () => attemptAt + 3_000);
    expect(await third.getIfNoneMatch(first.etag ?? '')).toEqual({ status: 304, etag: first.etag });
    await redis.command('DEL', KEY, `${KEY}:read-at`); // the next tests start without the back-off
  });

  it('ignores a garbled stored value', async () => {
    await redis.command('SET', KEY, '{"value": {"usd": "a lot"}, "storedAt": 1}');
    const reader = instance(bridge, { down: true });
    expect((await reader.get()).body).toMatchObject({ source: 'unavailable', usd: null });
    await redis.command('SET', KEY, 'not json at all');
    const again = instance(bridge, { down: true });
    expect((await again.get()).body.source).toBe('unavailable');
    expect(again.deps.logs.join('\n')).toMatch(/unreadable shared entry/);
  });

  it('never fails the endpoint, whatever Redis or the REST layer does', async () => {
    const faulty = (mode: BridgeFault) => {
      bridge.fault(mode);
      return bridge;
    };
    const cases: Array<{
      name: string;
      arrange: () => Promise<{ url: string; token: string }>;
      undo?: () => void;
    }> = [
      { name: 'wrong token', arrange: async () => ({ url: bridge.url, token: 'wrong-token-s3cret' }) },
      {
        name: 'REST layer answers garbage',
        arrange: async () => faulty('garbage'),
        undo: () => bridge.fault(null),
      },
      {
        name: 'REST layer answers an odd shape',
        arrange: async () => faulty('wrong-shape'),
        undo: () => bridge.fault(null),
      },
      {
        name: 'REST layer answers 500',
        arrange: async () => faulty('http-500'),
        undo: () => bridge.fault(null),
      },
      {
        name: 'REST layer hangs',
        arrange: async () => faulty('hang'),
        undo: () => bridge.fault(null),
      },
      {
        name: 'Redis hung (SIGSTOP)',
        arrange: async () => {
          redis.pause();
          return bridge;
        },
        undo: () => redis.resume(),
      },
      {
        name: 'REST endpoint refuses connections',
        arrange: async () => {
          const closed = await startUpstashBridge(redis.port);
          await closed.close();
          return closed;
        },
      },
      {
        name: 'Redis process gone',
        arrange: async () => {
          const doomed = await startRedisServer();
          const front = await startUpstashBridge(doomed.port);
          await doomed.stop();
          return front;
        },
      },
    ];
    for (const { name, arrange, undo } of cases) {
      const upstash = await arrange();
      try {
        const healthy = instance(upstash, { down: false });
        const live = await healthy.get();
        expect(live.status, name).toBe(200);
        expect(live.body.source, name).toBe('aggregator');
        const cold = instance(upstash, { down: true });
        const answer = await cold.get();
        expect(answer.status, name).toBe(200);
        expect(answer.body.source, name).toBe('unavailable');
        const logText = [...healthy.deps.logs, ...cold.deps.logs].join('\n');
        expect(logText, name).toMatch(
          /shared store unavailable|shared entry not saved|unreadable shared entry/,
        );
        expect(logText, name).not.toContain(upstash.token);
      } finally {
        undo?.();
      }
    }
  });
});
