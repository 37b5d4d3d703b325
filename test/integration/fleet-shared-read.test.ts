import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readMainnetForSlot } from '../../cron/slot-readings';
import { getCurrentGas } from '../../lib/services/current-gas';
import {
  countingFetch,
  createFleetInstance,
  emptyCounts,
  type FleetInstance,
  type ReadCounts,
} from '../helpers/fleet';
import { findStablePort } from '../helpers/free-port';
import { startUpstreams, type Upstreams } from '../upstreams';
import { type RedisServer, startRedisServer } from './helpers/redis-server';
import { startUpstashBridge, type UpstashBridge } from './helpers/upstash-bridge';

// A fleet of app instances (each with its own caches and state, like Worker isolates) sharing one real
// redis-server through the Upstash REST bridge, against the simulators. One clock drives the app and
// the simulated chains, so refresh points are reached without waiting for them.
const INSTANCES = 8;
const PATHS = ['/api/gas', '/api/eth-price', '/api/l2-gas'];
const MAINNET_KEY = 'gas-fee-api:shared:current-gas:mainnet';

let up: Upstreams;
let redis: RedisServer;
let bridge: UpstashBridge;
let clock = Date.now();
const now = () => clock;
let counts: ReadCounts;
let fleet: FleetInstance[];

beforeAll(async () => {
  // Below the ephemeral range, so nothing takes the port while Redis is stopped.
  [up, redis] = await Promise.all([
    startUpstreams({ now }),
    startRedisServer({ port: await findStablePort() }),
  ]);
  bridge = await startUpstashBridge(redis.port);
  // Warm the code paths once (a per-isolate instance, and the Redis client), so that the first fleet
  // round measures the fleet, not module compilation on a busy machine.
  const warm = createFleetInstance(up.env, { shared: false });
  for (const path of PATHS) await warm.request(path);
  await createFleetInstance(fleetEnv(), { shared: true }).deps.lastGood.get('warm-up');
});
afterAll(async () => {
  await bridge?.close();
  await redis?.stop();
  await up?.close();
});
beforeEach(async () => {
  clock = Date.now();
  await redis.command('FLUSHALL');
  counts = emptyCounts();
  fleet = Array.from({ length: INSTANCES }, () => instance());
});
afterEach(async () => {
  bridge.fault(null);
  await up.reset();
});

function instance(): FleetInstance {
  const env = fleetEnv();
  return createFleetInstance(env, { shared: true, now, fetch: countingFetch(env, counts) });
}

function fleetEnv(): Record<string, string> {
  return {
    ...up.env,
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: bridge.token,
    PUBLIC_BASE_URL: 'https://gas.test',
    // Store calls get 1 s and a refresh lease lives 2 x 1 s + 1 s.
    UPSTREAM_TIMEOUT_MS: '1000',
  };
}

/** Every instance asks every path at once; returns the answers, checked for status and shape. */
async function round(): Promise<Array<{ path: string; status: number; body: Record<string, unknown> }>> {
  const answers = await Promise.all(
    fleet.flatMap((member) =>
      PATHS.map(async (path) => {
        const res = await member.request(path);
        return { path, status: res.status, body: (await res.json()) as Record<string, unknown> };
      }),
    ),
  );
  for (const { path, status, body } of answers) {
    expect(status, path).toBe(200);
    expect(String(body.citation), path).toMatch(/updated \d{4}-\d\d-\d\dT/);
  }
  return answers;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const reads = () => ({ ...counts });
const diff = (after: ReadCounts, before: ReadCounts) =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - before[k as keyof ReadCounts]]));
const ONE_EACH = { mainnet: 1, 'price:ETH': 1, 'price:POL': 1 };
const L2_ONE_EACH = { 'l2:arbitrum': 1, 'l2:optimism': 1, 'l2:base': 1, 'l2:polygon': 1 };
const L2_NONE = { 'l2:arbitrum': 0, 'l2:optimism': 0, 'l2:base': 0, 'l2:polygon': 0 };

describe('a fleet reading through the shared Redis entry', () => {
  it('reads each upstream kind once per refresh, whatever the number of instances', async () => {
    // The first instance finds no entry and reads; the others, arriving together, read none.
    for (const path of PATHS) expect((await fleet[0]?.request(path))?.status).toBe(200);
    expect(reads()).toEqual({ ...ONE_EACH, ...L2_ONE_EACH });
    const first = await round();
    expect(reads()).toEqual({ ...ONE_EACH, ...L2_ONE_EACH });
    // Every instance serves the same reading, with the time it was read upstream.
    const gas = first.filter((a) => a.path === '/api/gas').map((a) => a.body.updatedAt);
    expect(new Set(gas).size).toBe(1);

    let before = reads();
    const commandsBefore = bridge.commands.length;
    clock += 10_000;
    await round();
    expect(diff(reads(), before)).toEqual({ 'price:ETH': 0, 'price:POL': 0, mainnet: 0, ...L2_NONE });
    // Fresh copies in every instance: no Redis call at all.
    expect(bridge.commands.length).toBe(commandsBefore);

    before = reads();
    clock += 18_000; // 28 s: mainnet and ETH are due (refreshed a sixth of their 30 s early), still fresh
    const second = await round();
    expect(diff(reads(), before)).toEqual({ ...ONE_EACH, 'price:POL': 0, ...L2_NONE });
    const price = second.filter((a) => a.path === '/api/eth-price').map((a) => a.body.source);
    // One instance read it just now and names the source; the others served the shared entry meanwhile.
    expect(price.filter((s) => s === 'aggregator')).toHaveLength(1);
    expect(price.filter((s) => s === 'cache')).toHaveLength(INSTANCES - 1);

    before = reads();
    clock += 28_000; // 56 s: the L2 networks and POL (60 s cadence) are due too
    await round();
    // POL, served only in the L2 answer, shares its 60 s cadence: due with the networks, still fresh.
    expect(diff(reads(), before)).toEqual({ ...ONE_EACH, ...L2_ONE_EACH });
  });

  it('shares a failing upstream: one instance tries, the others back off and serve the entry as stale', async () => {
    await round();
    await Promise.all([...up.mainnet, up.etherscan].map((sim) => sim.fault('http-500')));
    const before = reads();
    clock += 31_000;
    const answers = await round();
    // One attempt for the fleet: each provider and the explorer once.
    const oneAttempt = up.mainnet.length + 1;
    expect(diff(reads(), before).mainnet).toBe(oneAttempt);
    for (const { body } of answers.filter((a) => a.path === '/api/gas'))
      expect(String(body.source)).toMatch(/^stale:rpc-\d+$/);
    clock += 2_000;
    await round();
    expect(diff(reads(), before).mainnet).toBe(oneAttempt);
  });

  it('serves an explorer reading of a block 73 s old as `stale:etherscan` dated by its block: one attempt for the fleet, backed off; a slot read begun after that block waits the back-off out and reads again', async () => {
    // A cold fleet: every provider fails, and the explorer's proxy dates the oracle's block 73 s back.
    await Promise.all(up.mainnet.map((sim) => sim.fault('http-500')));
    const blockSeconds = Math.floor(clock / 1000) - 73;
    const updatedAt = new Date(blockSeconds * 1000).toISOString();
    up.etherscan.setBlock({ timestamp: blockSeconds });
    const oneAttempt = up.mainnet.length + 1;
    const answers = await round();
    expect(reads().mainnet).toBe(oneAttempt);
    for (const { body } of answers.filter((a) => a.path === '/api/gas'))
      expect(body).toMatchObject({ source: 'stale:etherscan', updatedAt });
    // The shared entry keeps it as the last good reading, beside the failed refresh.
    expect(JSON.parse(String(await redis.command('GET', MAINNET_KEY)))).toMatchObject({
      value: { source: 'etherscan', updatedAt },
      readAt: blockSeconds * 1000,
      failure: { count: 1 },
    });
    // Within the back-off no instance asks again, though the reading is past the 30-s cadence.
    clock += 2_000;
    await round();
    expect(reads().mainnet).toBe(oneAttempt);
    // The providers answer again. A slot whose read begins 76 s in (a tick's latest) began before the
    // block: the stand-in is dated since its start, but a failed refresh's reading is no reading since
    // then. The read waits out the back-off's last 3 s (a real wait: the clock stands still), then
    // reads once for the slot. Until later on 2026-11-28 it took the stand-in at once, as a last good
    // reading, and skipped the slot.
    await Promise.all(up.mainnet.map((sim) => sim.reset()));
    const [member] = fleet;
    if (!member) throw new Error('no instance');
    const slotStart = clock - 76_000;
    const slot = await readMainnetForSlot(member.deps, slotStart);
    expect(slot).toMatchObject({
      row: { slotStart, readAt: clock, source: expect.stringMatching(/^rpc-\d+$/) },
    });
    expect(reads().mainnet).toBeGreaterThan(oneAttempt);
  });

  it.each([
    ['on its own', false],
    ['after joining a request begun on its instance', true],
  ])(
    "stores nothing for its slot and asks no upstream again when the fleet's refresh fails, backing off past 15 s: a snapshot run %s",
    async (_, joinsRequest) => {
      const [solo] = fleet;
      if (!solo) throw new Error('no instance');
      expect((await solo.request('/api/gas')).status).toBe(200);
      // Each provider and the explorer answer HTTP 500 after 0.3 s at the soonest, so every instance
      // meets the holder's lease before its failure is written, and waits for it.
      await Promise.all(
        [...up.mainnet, up.etherscan].flatMap((sim) => [
          sim.fault('delay', { ms: 300 }),
          sim.fault('http-500'),
        ]),
      );
      const before = reads();
      clock += 31_000;
      // Two refreshes failed before (their back-off over): the holder's is the third, backing off for
      // 20 s, longer than a slot's read waits for (a shorter one: the case below).
      const stored = JSON.parse(String(await redis.command('GET', MAINNET_KEY))) as Record<string, unknown>;
      const failure = { kind: 'error', retryAt: clock - 1_000, count: 2 };
      await redis.command('SET', MAINNET_KEY, JSON.stringify({ ...stored, failure }), 'KEEPTTL');
      // A slot that began a second ago: the fleet's entry was read 30 s before it. Every instance (a
      // Node host each, on its own timer) runs its snapshot at the slot's start.
      const slotStart = clock - 1_000;
      const slots = await Promise.all(
        fleet.map(async (member) => {
          const request = joinsRequest ? getCurrentGas(member.deps).catch(() => null) : null;
          const slot = await readMainnetForSlot(member.deps, slotStart);
          await request;
          return slot;
        }),
      );
      // The holder's attempt is the fleet's one: until 2026-11-28 every other instance read the
      // upstream again once the holder had failed (after its 2-s wait, or at once after the request
      // it joined), and wrote its own failure over the holder's.
      expect(diff(reads(), before).mainnet).toBe(up.mainnet.length + 1);
      expect(slots).toEqual(fleet.map(() => ({ skipped: 'only a last good reading' })));
      const entry = JSON.parse(String(await redis.command('GET', MAINNET_KEY))) as {
        failure: { count: number; retryAt: number };
      };
      expect(entry.failure).toMatchObject({ count: 3, retryAt: clock + 20_000 });
    },
  );

  it.each([
    ['on its own', false],
    ['after joining a request begun on its instance', true],
  ])(
    "fills its slot once the fleet's short back-off after a failed refresh has ended: one attempt during it, one read after it: a snapshot run %s",
    async (_, joinsRequest) => {
      const [solo] = fleet;
      if (!solo) throw new Error('no instance');
      expect((await solo.request('/api/gas')).status).toBe(200);
      // The holder's attempt fails (each provider and the explorer answer HTTP 500 once, after 0.3 s,
      // so every instance meets its lease and waits for it); the upstream is healthy again at once.
      await Promise.all(
        [...up.mainnet, up.etherscan].flatMap((sim) => [
          sim.fault('delay', { ms: 300, times: 1 }),
          sim.fault('http-500', { times: 1 }),
        ]),
      );
      const before = reads();
      clock += 31_000;
      const slotStart = clock - 1_000;
      // Every instance's snapshot meets the holder's failure and its 5-s back-off (a real wait: the
      // clock stands still), then reads under the lease.
      const slots = await Promise.all(
        fleet.map(async (member) => {
          const request = joinsRequest ? getCurrentGas(member.deps).catch(() => null) : null;
          const slot = await readMainnetForSlot(member.deps, slotStart);
          await request;
          return slot;
        }),
      );
      // The holder's failed attempt during the back-off, one read after it for the whole fleet. Until
      // 2026-11-28 every slot was skipped as `only a last good reading` (and before that change,
      // every other instance read the upstream itself after its 2-s wait for the holder).
      expect(diff(reads(), before).mainnet).toBe(up.mainnet.length + 1 + 1);
      // A run whose own read was the failed attempt (the holder's, when it joined no request) had its
      // try and skips, as before; every other instance's slot is filled with the one reading.
      const filled = slots.flatMap((slot) => ('row' in slot ? [slot.row] : []));
      expect(filled).toHaveLength(joinsRequest ? INSTANCES : INSTANCES - 1);
      for (const row of filled) expect(row).toMatchObject({ slotStart, readAt: clock });
      const entry = JSON.parse(String(await redis.command('GET', MAINNET_KEY))) as { failure: unknown };
      expect(entry.failure).toBeNull();
    },
  );

  it.each([
    ['every source answers HTTP 500', 'stale-error', 'http-500'],
    ['CoinGecko hangs past its attempt, the exchanges answer HTTP 500', 'stale-timeout', 'hang'],
  ] as const)(
    'labels the price of instances that waited for a failed refresh by its failure: %s',
    async (_, label, coingeckoFault) => {
      const [solo] = fleet;
      if (!solo) throw new Error('no instance');
      const first = (await (await solo.request('/api/eth-price')).json()) as { source: string };
      expect(first.source).toBe('aggregator');
      // Requests CoinGecko and Coinbase got from now on (the simulators' counters hold the warm-up's too).
      const sources = [up.coingecko, up.coinbase];
      const before = sources.map((sim) => sim.requests.total);
      const asked = () => sources.map((sim, i) => sim.requests.total - (before[i] ?? 0));
      // Each source answers after 0.3 s at the soonest, so every instance meets the holder's lease
      // before its failure is written, and waits for it.
      await Promise.all([
        up.coingecko.fault(coingeckoFault),
        ...[up.coingecko, up.coinbase, up.kraken].map((sim) => sim.fault('delay', { ms: 300 })),
        ...[up.coinbase, up.kraken].map((sim) => sim.fault('http-500')),
      ]);
      clock += 31_000;
      const prices = async (members: FleetInstance[]) =>
        Promise.all(
          members.map(async (member) => {
            const res = await member.request('/api/eth-price');
            expect(res.status).toBe(200);
            expect(res.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30');
            const body = (await res.json()) as Record<string, unknown>;
            expect(body.staleAgeMs).toBe(clock - Date.parse(String(body.updatedAt)));
            expect(body.priceSource).toBe('aggregator');
            return body.source;
          }),
        );
      // One instance tried and failed; the others waited for it. Until 2026-11-28 they said
      // `stale-cooldown`, as if served at once during the fleet's back-off.
      expect(await prices(fleet)).toEqual(fleet.map(() => label));
      expect(asked()).toEqual([1, 1]);
      // Within the back-off, every instance (a new one too) serves the entry at once, asking nothing.
      clock += 1_000;
      const members = [...fleet, instance()];
      expect(await prices(members)).toEqual(members.map(() => 'stale-cooldown'));
      expect(asked()).toEqual([1, 1]);
    },
  );

  it.each([
    [
      'stopped',
      async () => redis.stop(),
      async (): Promise<void> => {
        const port = redis.port;
        redis = await startRedisServer({ port });
      },
    ],
    ['answering after 2 s', async () => bridge.fault('slow', 2_000), async () => bridge.fault(null)],
  ] as const)(
    'answers every request correctly when Redis is %s mid-run, one read per instance at most',
    async (_, breakIt, mend) => {
      await round();
      await breakIt();
      try {
        const before = reads();
        clock += 31_000;
        const answers = await round();
        for (const { path, body } of answers) {
          if (path === '/api/gas') expect(String(body.source)).toMatch(/^rpc-\d+$/);
          if (path === '/api/eth-price') expect(body.usd).toBeGreaterThan(0);
        }
        const during = diff(reads(), before);
        // Each instance fell back to its own read: at least one, one per instance at most (a read that
        // is hedged on a busy machine asks a second provider too).
        expect(during.mainnet).toBeGreaterThanOrEqual(1);
        expect(during.mainnet).toBeLessThanOrEqual(2 * INSTANCES);
        // No retry storm: within the instances' fresh copies nothing more is read nor asked of Redis.
        await sleep(2_100); // calls that timed out reach the slow bridge (and are counted) by now
        const commands = bridge.commands.length;
        const again = reads();
        clock += 1_000;
        await round();
        expect(diff(reads(), again).mainnet).toBe(0);
        expect(bridge.commands.length).toBe(commands);
      } finally {
        await mend();
      }
      await sleep(3_000); // a lease a late call took in the slow Redis has expired
      // Back to one read for the fleet once Redis answers and the instances probe it again.
      const before = reads();
      clock += 27_000; // the instances' own readings are due, still fresh: one refresh, the others serve them
      await round();
      expect(diff(reads(), before).mainnet).toBe(1);
    },
  );

  it('lets the next instance take the lease when its holder dies mid-read', async () => {
    const [solo] = fleet;
    if (!solo) throw new Error('no instance');
    await solo.request('/api/gas');
    const seeded = JSON.parse(String(await redis.command('GET', MAINNET_KEY))) as { readAt: number };
    // The entry is due (26 s old) and a holder took the lease, then died without writing.
    clock += 26_000;
    await redis.command('SET', `${MAINNET_KEY}:lease`, '1', 'PX', '800');
    const before = reads();
    const other = instance();
    const served = (await (await other.request('/api/gas')).json()) as { updatedAt: string };
    expect(Date.parse(served.updatedAt)).toBe(seeded.readAt);
    expect(diff(reads(), before).mainnet).toBe(0);

    await sleep(900); // the lease expires in Redis
    clock += 1_500;
    const refreshed = (await (await other.request('/api/gas')).json()) as { updatedAt: string };
    expect(Date.parse(refreshed.updatedAt)).toBe(clock);
    expect(diff(reads(), before).mainnet).toBe(1);
    const entry = JSON.parse(String(await redis.command('GET', MAINNET_KEY))) as { readAt: number };
    expect(entry.readAt).toBe(clock);
  });

  it('refuses times no instance could have written: a retry an hour away, a reading from the future', async () => {
    const stored = async () => JSON.parse(String(await redis.command('GET', MAINNET_KEY)));
    // A failure record whose retry is an hour away would stop every refresh for that hour.
    const failure = { kind: 'timeout', retryAt: clock + 3_600_000, count: 1 };
    await redis.command('SET', MAINNET_KEY, JSON.stringify({ value: null, readAt: null, failure }));
    const first = await fleet[0]?.request('/api/gas');
    expect(first?.status).toBe(200);
    expect(reads().mainnet).toBe(1);
    expect((await stored()).readAt).toBe(clock);
    // A good reading stamped an hour ahead would be served as fresh for that hour.
    await redis.command(
      'SET',
      MAINNET_KEY,
      JSON.stringify({ ...(await stored()), readAt: clock + 3_600_000 }),
    );
    clock += 31_000;
    const second = (await (await fleet[1]!.request('/api/gas')).json()) as { updatedAt: string };
    expect(reads().mainnet).toBe(2);
    expect(Date.parse(second.updatedAt)).toBe(clock);
    expect(
      fleet[0]?.deps.logs.some((l) => l.includes('ignored a shared entry with times out of range')),
    ).toBe(true);
  });

  it.each([
    ['text that is no JSON', '{"value": {"low'],
    ['JSON of another shape', '{"value": {"low": "cheap", "source": 42}, "readAt": 1, "failure": null}'],
  ])('ignores %s in the entry and overwrites it with a good reading', async (_, garbage) => {
    await redis.command('SET', MAINNET_KEY, garbage);
    const solo = await fleet[0]?.request('/api/gas');
    expect(solo?.status).toBe(200);
    const answers = await round();
    for (const { path, body } of answers)
      if (path === '/api/gas') expect(String(body.source)).toMatch(/^rpc-\d+$/);
    expect(reads().mainnet).toBe(1);
    const entry = JSON.parse(String(await redis.command('GET', MAINNET_KEY))) as { readAt: number };
    expect(entry.readAt).toBe(clock);
    expect(fleet[0]?.deps.logs.some((l) => l.includes('ignored an unreadable shared entry'))).toBe(true);
  });

  it.each([
    [
      'a mainnet tier of 1e300 gwei',
      MAINNET_KEY,
      '/api/gas',
      (v: Record<string, unknown>) => (v.high = 1e300),
    ],
    [
      'an ETH price of $1e300',
      'gas-fee-api:shared:price:v2:ETH',
      '/api/eth-price',
      (v: Record<string, unknown>) => (v.usd = 1e300),
    ],
    [
      'a Base gas price of 1e21 gwei',
      'gas-fee-api:shared:l2-gas:v2:base',
      '/api/l2-gas',
      (v: Record<string, unknown>) => (v.gasPriceWei = `1${'0'.repeat(30)}`),
    ],
  ])(
    'does not serve %s from a well-formed entry, and reads upstream instead',
    async (_, key, path, spoil) => {
      expect((await fleet[0]?.request(path))?.status).toBe(200);
      const entry = JSON.parse(String(await redis.command('GET', key))) as { value: Record<string, unknown> };
      spoil(entry.value);
      await redis.command('SET', key, JSON.stringify(entry));
      const fresh = instance();
      const body = (await (await fresh.request(path)).json()) as Record<string, unknown>;
      expect(JSON.stringify(body)).not.toMatch(/e\+(300|21)/);
      expect(fresh.deps.logs.some((l) => l.includes('ignored an unreadable shared entry'))).toBe(true);
    },
  );
});
