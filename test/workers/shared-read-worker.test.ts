import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { Redis } from '@upstash/redis/cloudflare';
import { describe, expect, it } from 'vitest';
import { readMainnetForSlot } from '../../cron/slot-readings';
import { createApp } from '../../functions/app';
import worker from '../../functions/index';
import { createLastGoodStore } from '../../lib/store/create-last-good';
import { createTestDeps } from '../helpers/deps';
import { setup, workerEnv } from './test-setup';

// The Worker in workerd, configured with Upstash: it reaches a real redis-server through the Upstash
// REST bridge that global-setup.ts started, where a Node instance of the app already wrote mainnet gas.
const env = {
  ...workerEnv,
  UPSTASH_REDIS_REST_URL: setup.upstash.url,
  UPSTASH_REDIS_REST_TOKEN: setup.upstash.token,
};
const KEY = 'gas-fee-api:shared:';
const redis = () =>
  new Redis({ url: setup.upstash.url, token: setup.upstash.token, automaticDeserialization: false });

/** The commands the Upstash bridge has received, in order (a test-only route of the bridge). */
async function bridgeCommands(): Promise<string[][]> {
  const res = await fetch(`${setup.upstash.url}/__commands`, {
    headers: { authorization: `Bearer ${setup.upstash.token}` },
  });
  return ((await res.json()) as { result: string[][] }).result;
}

/** Polls `done` every 50 ms until it holds (the test's own timeout bounds the wait). */
async function waitFor(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function get(path: string): Promise<Record<string, unknown>> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`https://gas.test${path}`), env, ctx);
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

interface Entry {
  value: Record<string, unknown>;
  readAt: number;
  failure: unknown;
}

const MAINNET_KEY = `${KEY}current-gas:mainnet`;

/**
 * Runs `check` with the fleet's mainnet entry in Redis replaced by a failed refresh (the stored
 * reading, dated `readAt`, and a fourth failure in a row retried at `retryAt`), given the entry as
 * written, then puts back what was there.
 */
async function withFailedMainnetEntry(
  readAt: number,
  retryAt: number,
  check: (failed: string) => Promise<void>,
): Promise<void> {
  const [raw, rawReadAt] = await Promise.all([
    redis().get<string>(MAINNET_KEY),
    redis().get<string>(`${MAINNET_KEY}:read-at`),
  ]);
  const entry = JSON.parse(String(raw)) as Entry;
  const value = { ...entry.value, updatedAt: new Date(readAt).toISOString() };
  const failed = JSON.stringify({ value, readAt, failure: { kind: 'error', retryAt, count: 4 } });
  await redis().set(MAINNET_KEY, failed, { px: 60_000 });
  await redis().set(`${MAINNET_KEY}:read-at`, String(readAt), { px: 60_000 });
  try {
    await check(failed);
  } finally {
    await redis().set(MAINNET_KEY, String(raw), { px: 86_400_000 });
    if (rawReadAt !== null) await redis().set(`${MAINNET_KEY}:read-at`, rawReadAt, { px: 86_400_000 });
  }
}

describe('Worker reading through the shared Redis entry', () => {
  it('serves mainnet gas from the entry another instance wrote, without its own upstream read', async () => {
    const raw = await redis().get<string>(`${KEY}current-gas:mainnet`);
    const entry = JSON.parse(String(raw)) as Entry;
    // Mark the peer's reading (fresh, from a provider label no simulator has) so the answer shows its origin.
    const readAt = Date.now();
    const peer = {
      ...entry,
      readAt,
      value: { ...entry.value, source: 'peer-isolate', updatedAt: new Date(readAt).toISOString() },
    };
    await redis().set(`${KEY}current-gas:mainnet`, JSON.stringify(peer), { px: 60_000 });

    const body = await get('/api/gas');
    expect(body).toMatchObject({ source: 'peer-isolate', updatedAt: new Date(readAt).toISOString() });
    expect(body.blockNumber).toBe(entry.value.blockNumber);
    expect(String(body.citation)).toContain(`updated ${new Date(readAt).toISOString()}`);
  });

  it("reads no upstream for a snapshot's slot while the fleet's failed refresh backs off", async () => {
    // The Cron Trigger's snapshot read (cron/slot-readings.ts, as runSnapshotJob calls it) in workerd,
    // through Upstash, in an isolate of its own: the whole tick would also store the hour's forecast
    // and race the Cron Trigger tests for their slot.
    const deps = createTestDeps(env);
    deps.lastGood = createLastGoodStore(deps.config);
    // A slot begun 10 s ago; the fleet's reading was taken 5 s before it, and another isolate's refresh
    // of it has just failed for the fourth time: the fleet backs off for 40 s, longer than a slot's
    // read waits for a back-off to end (15 s; a shorter one it waits out, then reads: until
    // 2026-11-28 it skipped that too).
    const slotStart = Date.now() - 10_000;
    await withFailedMainnetEntry(slotStart - 5_000, Date.now() + 40_000, async (failed) => {
      // Until 2026-11-28 the slot's read went to the upstream during the back-off and wrote its reading.
      expect(await readMainnetForSlot(deps, slotStart)).toEqual({ skipped: 'only a last good reading' });
      expect(await redis().get<string>(MAINNET_KEY)).toBe(failed);
    });
  });

  it("answers mainnet gas's 503 with the seconds left of the fleet's back-off in Redis as its Retry-After", async () => {
    // The app in workerd over Upstash, as the Worker builds it, on a clock that stands still (so the
    // hint is exact however slow the machine), with instance state of its own.
    const now = Date.now();
    const deps = createTestDeps(env, { now: () => now });
    deps.lastGood = createLastGoodStore(deps.config);
    // The fleet's reading is 6 minutes old, too old to serve, and another isolate's refresh of it has
    // just failed for the fourth time in a row: the fleet tries again in 40 s.
    await withFailedMainnetEntry(now - 6 * 60_000, now + 40_000, async (failed) => {
      const res = await createApp(deps).request('/api/gas');
      expect(res.status).toBe(503);
      expect(res.headers.get('Cache-Control')).toBe('no-store');
      // 40 s, or 41 as this instance looks again up to a second after the retry time; until
      // 2026-11-28 it said 30, and a client came back to another 503.
      expect(['40', '41']).toContain(res.headers.get('Retry-After'));
      // It asked no upstream during the back-off: the entry is the one written above.
      expect(await redis().get<string>(MAINNET_KEY)).toBe(failed);
    });
  });

  it('labels the price it waited for a lease holder to fail by that failure, not stale-cooldown', async () => {
    const key = `${KEY}price:v2:ETH`;
    // Another isolate holds the lease on an entry past its 30 s cadence, and is reading the sources.
    const readAt = Date.now() - 40_000;
    const value = {
      usd: 1500,
      change24h: 1,
      priceSource: 'exchange_a',
      readAt,
      quotedAt: readAt,
      sparkline: null,
    };
    await redis().set(key, JSON.stringify({ value, readAt, failure: null }), { px: 60_000 });
    await redis().set(`${key}:lease`, 'peer', { px: 10_000 });
    // Each request its own address, so that none is answered from the edge cache's copy of another.
    const before = (await bridgeCommands()).length;
    const answer = get('/api/eth-price?waiter');
    // Once the Worker has met the lease (and so waits for the holder), the holder's read fails with
    // errors: it writes the failure with the fleet's retry time (1.5 s ahead, so the Worker's next
    // poll, at most 0.5 s away, finds it in force). Until 2026-11-28 the test waited a fixed second,
    // which a slow start of the request on a loaded machine could outrun.
    await waitFor(async () =>
      (await bridgeCommands()).slice(before).some((command) => command.includes(`${key}:lease`)),
    );
    const retryAt = Date.now() + 1_500;
    const failure = { kind: 'error', retryAt, count: 1 };
    await redis().set(key, JSON.stringify({ value, readAt, failure }), { px: 60_000 });
    await redis().del(`${key}:lease`);
    try {
      const body = await answer;
      // Until 2026-11-28 a waiter said `stale-cooldown`, as if served at once during a back-off.
      expect(body).toMatchObject({ usd: 1500, source: 'stale-error', priceSource: 'exchange_a' });
      expect(body.updatedAt).toBe(new Date(readAt).toISOString());
      // Served again within the back-off, from the isolate's copy without asking or waiting.
      const again = await get('/api/eth-price?served-at-once');
      expect(again).toMatchObject({ usd: 1500, source: 'stale-cooldown' });
    } finally {
      // The next test begins with no ETH entry: this one's is removed, and the isolate's copy ends with
      // the back-off (at most a second after its retry time).
      await redis().del(key);
      await new Promise((resolve) => setTimeout(resolve, retryAt + 1_100 - Date.now()));
    }
  });

  it("lets go of a lease only under its own token, so a holder whose lease ran out leaves the next one's", async () => {
    // The Worker's store (Upstash over REST, as createLastGoodStore builds it) in workerd.
    const store = createLastGoodStore(createTestDeps(env).config);
    const key = `${KEY}worker-token`;
    await redis().del(`${key}:lease`, key, `${key}:read-at`);
    expect((await store.lease('worker-token:lease', 5_000, 'worker-token', 'first')).taken).toBe(true);
    await redis().del(`${key}:lease`); // it runs out while its holder is still reading
    expect((await store.lease('worker-token:lease', 5_000, 'worker-token', 'second')).taken).toBe(true);
    try {
      // The first holder's write lands late, then it lets go: until 2026-11-28 either freed the
      // second holder's lease.
      const entry = { value: 1, readAt: Date.now(), failure: null };
      const first = { key: 'worker-token:lease', token: 'first' };
      expect(await store.set('worker-token', entry, 60_000, { releaseLease: first })).toEqual({
        stored: true,
      });
      await store.release('worker-token:lease', 'first');
      expect(await redis().get(`${key}:lease`)).toBe('second');
      await store.release('worker-token:lease', 'second');
      expect(await redis().exists(`${key}:lease`)).toBe(0);
    } finally {
      await redis().del(`${key}:lease`, key, `${key}:read-at`);
    }
  });

  it('reads a kind with no entry upstream once, shares it in Redis and lets go of the lease', async () => {
    expect(await redis().get(`${KEY}price:v2:ETH`)).toBeNull();
    const body = await get('/api/eth-price');
    expect(body).toMatchObject({ source: 'aggregator', priceSource: 'aggregator' });
    const entry = JSON.parse(String(await redis().get<string>(`${KEY}price:v2:ETH`))) as Entry;
    // The price is dated by its quote (CoinGecko's last_updated); the entry by when it was read.
    expect(entry.value).toMatchObject({ usd: body.usd, priceSource: 'aggregator' });
    expect(entry.value.quotedAt).toBe(Date.parse(String(body.updatedAt)));
    expect(entry.readAt).toBeGreaterThanOrEqual(Number(entry.value.quotedAt));
    expect(entry.failure).toBeNull();
    expect(await redis().exists(`${KEY}price:v2:ETH:lease`)).toBe(0);
    const pttl = await redis().pttl(`${KEY}price:v2:ETH`);
    expect(pttl).toBeGreaterThan(3_600_000);
  });
});
