import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_GAS_LAST_GOOD_KEY, getCurrentGas } from '../../lib/services/current-gas';
import { KNOWN_HEAD_KEY } from '../../lib/services/mainnet-known-head';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { getGasWithoutLeaks } from '../helpers/gas-request';
import { type FaultMode, startUpstreams, type Upstreams } from '../upstreams';
import { HEALTHY_VIEW } from '../upstreams/chain-model';

let upstreams: Upstreams;
/** How far the simulated chain's clock runs ahead of the real one (a test moves it with the app's). */
let chainOffsetMs = 0;

/** GETs /api/gas and checks that neither the body nor any log line carries a simulator URL, port or key. */
const getGas = (deps: TestDeps) => getGasWithoutLeaks(upstreams, deps, ['/v3/', '/v2/api', 'apikey']);

async function failEveryRpc(mode: FaultMode = 'refuse') {
  await Promise.all(upstreams.mainnet.map((sim) => sim.fault(mode)));
}

beforeAll(async () => {
  upstreams = await startUpstreams({ now: () => Date.now() + chainOffsetMs });
});

afterEach(async () => {
  chainOffsetMs = 0;
  await upstreams.reset();
});

afterAll(async () => {
  await upstreams?.close();
});

describe('GET /api/gas when every RPC provider fails', () => {
  it('serves the Etherscan gas oracle, mapped Safe/Propose/Fast -> low/average/high', async () => {
    await failEveryRpc();
    const head = upstreams.mainnet[0]?.model.headNumber(HEALTHY_VIEW) ?? 0;
    upstreams.etherscan.setOracle({
      SafeGasPrice: '0.523456',
      ProposeGasPrice: '0.61',
      FastGasPrice: '1.2',
      suggestBaseFee: '0.498123',
      LastBlock: String(head),
    });
    const { res, body } = await getGas(createTestDeps(upstreams.env));
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      low: 0.523456,
      average: 0.61,
      high: 1.2,
      baseFee: 0.498123,
      blockNumber: head,
      source: 'etherscan',
    });
    const sent = new URL(upstreams.etherscan.requests.log.at(-1)?.url ?? '', 'http://sim');
    expect(sent.searchParams.get('apikey')).toBe(upstreams.env.ETHERSCAN_API_KEY);
    expect(sent.searchParams.get('chainid')).toBe('1');
  });

  it('serves Etherscan when every provider hangs, after the pool deadline', async () => {
    await failEveryRpc('hang');
    const deps = createTestDeps({ ...upstreams.env, UPSTREAM_TIMEOUT_MS: '400' });
    const { body } = await getGas(deps);
    expect(body.source).toBe('etherscan');
    // One timeout per provider. Only the RPC attempts' lines count: the explorer's proxy call, given what
    // the oracle leaves of the budget, may time out as well on a loaded machine and log its own.
    const rpcTimeouts = deps.logs.filter(
      (line) => line.includes('rpc attempt failed') && line.includes('"kind":"timeout"'),
    );
    expect(rpcTimeouts).toHaveLength(3);
  });

  it.each([
    ['refuses connections', async () => upstreams.etherscan.fault('refuse')],
    ['answers HTTP 500', async () => upstreams.etherscan.fault('http-500')],
    ['answers NOTOK (rate limit)', async () => upstreams.etherscan.fault('rpc-error')],
    ['answers malformed JSON', async () => upstreams.etherscan.fault('malformed')],
    [
      'pads a valid answer past the 2 MB body cap',
      async () => {
        const valid = {
          status: '1',
          message: 'OK',
          result: {
            LastBlock: '23850000',
            SafeGasPrice: '1',
            ProposeGasPrice: '2',
            FastGasPrice: '3',
            suggestBaseFee: '0.9',
          },
        };
        await upstreams.etherscan.fault('malformed', { body: JSON.stringify(valid) + ' '.repeat(2_100_000) });
      },
    ],
    ['serves absurd values', async () => upstreams.etherscan.fault('absurd')],
    [
      'serves unordered tiers',
      async () => upstreams.etherscan.setOracle({ SafeGasPrice: '3', FastGasPrice: '1' }),
    ],
    ['serves a non-numeric tier', async () => upstreams.etherscan.setOracle({ ProposeGasPrice: 'n/a' })],
  ])(
    'answers 503 problem+json with Retry-After when Etherscan also %s and nothing was read before',
    async (_, breakIt) => {
      await failEveryRpc();
      await breakIt();
      const deps = createTestDeps(upstreams.env);
      const { res, body } = await getGas(deps);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(body).toMatchObject({ status: 503, title: 'Gas data unavailable' });
    },
  );

  it('rejects on a cold process an Etherscan answer days behind what the clock allows', async () => {
    await failEveryRpc();
    upstreams.etherscan.setOracle({ LastBlock: '12000000' }); // a 2021 block, served as if current
    const deps = createTestDeps(upstreams.env);
    const { res } = await getGas(deps);
    expect(res.status).toBe(503);
    expect(deps.logs.some((line) => line.includes('etherscan stale'))).toBe(true);
  });

  it('rejects an Etherscan answer behind the blocks RPC providers already served', async () => {
    let offsetMs = 0;
    const deps = createTestDeps(upstreams.env, { now: () => Date.now() + offsetMs });
    expect((await getGas(deps)).res.status).toBe(200);
    offsetMs = 31_000; // the reading is due again
    await failEveryRpc();
    await upstreams.etherscan.fault('stale');
    const { body } = await getGas(deps);
    expect(body.source).toBe('stale:rpc-1');
    expect(deps.logs.some((line) => line.includes('etherscan stale'))).toBe(true);
  });
});

describe('GET /api/gas when every RPC provider has failed for hours', () => {
  /**
   * One instance reads the RPC providers; every provider then fails, and `hours` later (for the chain
   * as well) another instance sharing the store (the fleet's Redis) finds Etherscan at
   * `lastBlock(head)`, whose proxy answers that block stamped `blockAgeSeconds` before the clock.
   */
  async function askEtherscanLater(
    hours: number,
    lastBlock: (head: number) => number,
    blockAgeSeconds?: number,
  ) {
    const lastGood = createMemoryLastGoodStore();
    const live = await getGas(createTestDeps(upstreams.env, { lastGood }));
    const head = live.body.blockNumber as number;
    await failEveryRpc();
    upstreams.etherscan.setOracle({ LastBlock: String(lastBlock(head)) });
    const offsetMs = hours * 3_600_000;
    chainOffsetMs = offsetMs;
    const blockSeconds =
      blockAgeSeconds === undefined
        ? undefined
        : Math.floor((Date.now() + offsetMs) / 1000) - blockAgeSeconds;
    if (blockSeconds !== undefined) upstreams.etherscan.setBlock({ timestamp: blockSeconds });
    const later = createTestDeps(upstreams.env, { lastGood, now: () => Date.now() + offsetMs });
    return { deps: later, blockSeconds, ...(await getGas(later)) };
  }

  it('rejects an Etherscan answer still at the head RPC providers served two hours before', async () => {
    const { deps, res } = await askEtherscanLater(2, (head) => head);
    expect(res.status).toBe(503);
    expect(deps.logs.some((line) => line.includes('etherscan stale'))).toBe(true);
  });

  it('serves an Etherscan answer that advanced with the clock, even with 40 % of the slots missed', async () => {
    // Two hours are 600 slots; a chain that filled only 60 % of them is far worse than mainnet's. Its
    // newest block is 360 on, made 6 s ago: the proxy answers it so, and its own time dates the reading.
    const { deps, body, blockSeconds } = await askEtherscanLater(2, (head) => head + 360, 6);
    expect(body.source).toBe('etherscan');
    expect(upstreams.etherscan.requests.byMethod.eth_getBlockByNumber).toBe(1);
    expect(deps.logs.filter((line) => line.includes('etherscan block time unavailable'))).toEqual([]);
    expect((await getCurrentGas(deps)).blockTimestamp).toBe(blockSeconds);
  });
});

describe('GET /api/gas when the shared store is slow to keep the known head', () => {
  it('shares the reading and releases the lease without waiting for the head record', async () => {
    // The fleet's store, whose write of the known head alone never completes.
    const inner = createMemoryLastGoodStore();
    const lastGood: LastGoodStore = {
      scope: 'redis',
      get: (key) => inner.get(key),
      lease: (...args) => inner.lease(...args),
      release: (...args) => inner.release(...args),
      set: (key, value, keepMs, options) =>
        key === KNOWN_HEAD_KEY ? new Promise(() => {}) : inner.set(key, value, keepMs, options),
    };
    const deps = createTestDeps(upstreams.env, { lastGood });
    // The reading's last step before its write, the base-fee rank, ends only once the record's write
    // has run out the store's budget (1 s; the rank waits up to 1.5 s), so the refresh writes after
    // that every time. Until 2026-11-28 which came first was left to the machine's speed.
    const recordGivenUp = () => deps.logs.some((line) => line.includes('shared store unavailable'));
    deps.withDb = async () => {
      while (!recordGivenUp()) await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error('no database in this test');
    };
    const { res, body } = await getGas(deps);
    expect(res.status).toBe(200);
    expect(recordGivenUp()).toBe(true);
    // Until 2026-11-28 the record was awaited first: it ran out the store's budget, the store was
    // taken for sick, and the refresh neither stored its reading nor released its lease. Then, until
    // later that day, the record's timeout still took the store for sick, and a refresh that wrote
    // after it skipped its write just the same.
    expect(body.source).toMatch(/^rpc-\d$/); // whichever provider answered first on a busy machine
    expect(await inner.get(CURRENT_GAS_LAST_GOOD_KEY)).toMatchObject({ value: { source: body.source } });
    expect(await inner.get(`${CURRENT_GAS_LAST_GOOD_KEY}:lease`)).toBeNull();
  });
});

describe('GET /api/gas after a provider served a head numbered ahead of the chain', () => {
  it('still serves an honest Etherscan answer once every provider fails', async () => {
    let offsetMs = 0;
    const deps = createTestDeps(upstreams.env, { now: () => Date.now() + offsetMs });
    const head = (await getGas(deps)).body.blockNumber as number;
    // The first provider now numbers its head 1,000 blocks ahead (a buggy node), stamped now: below the
    // bound on any mainnet block of its time, so its reading is served.
    upstreams.mainnet[0]?.setHead({ number: head + 1_000 });
    offsetMs = 31_000; // the reading is due again
    expect((await getGas(deps)).body.blockNumber).toBe(head + 1_000);
    // A minute on for the chain as well: the explorer's block is as old as its own time says.
    offsetMs = 62_000;
    chainOffsetMs = offsetMs;
    await failEveryRpc();
    const { body } = await getGas(deps);
    expect(body).toMatchObject({ source: 'etherscan', blockNumber: expect.any(Number) });
    expect(body.blockNumber).toBeLessThan(head + 1_000);
    expect(deps.logs.some((line) => line.includes('mainnet head ahead of the known one'))).toBe(true);
  });
});

describe('GET /api/gas when everything fails', () => {
  /** Two app instances sharing one last-good store, the second with its clock `offsetMs` ahead. */
  async function readThenFail(offsetMs: number) {
    const lastGood = createMemoryLastGoodStore();
    const first = createTestDeps(upstreams.env, { lastGood });
    const live = await getGas(first);
    expect(live.res.status).toBe(200);
    await failEveryRpc();
    await upstreams.etherscan.fault('refuse');
    const later = createTestDeps(upstreams.env, { lastGood, now: () => Date.now() + offsetMs });
    return { live: live.body, ...(await getGas(later)) };
  }

  it('serves the last good reading (under 5 minutes old) from another instance, marked stale', async () => {
    const { live, res, body } = await readThenFail(4 * 60_000);
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      low: live.low,
      average: live.average,
      high: live.high,
      blockNumber: live.blockNumber,
      updatedAt: live.updatedAt,
      source: `stale:${live.source}`,
    });
    expect(body.citation).toContain(`updated ${live.updatedAt}`);
  });

  it('answers 503 with Retry-After once the last good reading is over 5 minutes old', async () => {
    const { res, body } = await readThenFail(5 * 60_000 + 5_000);
    expect(res.status).toBe(503);
    // The first failed refresh is tried again in 5 s (this instance looks again up to a second later),
    // and the hint counts down to it (a slow machine only lowers it); until 2026-11-28 it was 30.
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect(body.detail).not.toMatch(/127\.0\.0\.1|http/);
  });

  it('answers 503, not a crash, when the shared store holds a garbled reading', async () => {
    await failEveryRpc();
    await upstreams.etherscan.fault('refuse');
    const lastGood = createMemoryLastGoodStore();
    const garbled = { value: { low: 'cheap', source: 42 }, readAt: Date.now(), failure: null };
    await lastGood.set('current-gas:mainnet', garbled, 60_000);
    const deps = createTestDeps(upstreams.env, { lastGood });
    const { res } = await getGas(deps);
    expect(res.status).toBe(503);
    expect(deps.logs.join('\n')).toContain('ignored an unreadable shared entry');
  });

  it('answers 503 on a cold start', async () => {
    await failEveryRpc();
    await upstreams.etherscan.fault('http-500');
    const { res } = await getGas(createTestDeps(upstreams.env));
    expect(res.status).toBe(503);
  });
});
