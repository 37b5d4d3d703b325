// The Etherscan backstop's block time (lib/services/explorer-gas.ts): read from the explorer's proxy
// (eth_getBlockByNumber at the gas oracle's LastBlock), not guessed from the read time.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_GAS_LAST_GOOD_KEY, getCurrentGas } from '../../lib/services/current-gas';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { getGasWithoutLeaks } from '../helpers/gas-request';
import { type FaultMode, type FaultOptions, startUpstreams, type Upstreams } from '../upstreams';
import { HEALTHY_VIEW } from '../upstreams/chain-model';

/** One clock for the app and the simulated chain, 3 s into a slot of the real one. */
let now = Math.floor(Date.now() / 12_000) * 12_000 + 3_000;
let up: Upstreams;

beforeAll(async () => {
  up = await startUpstreams({ now: () => now });
});
afterEach(async () => {
  now = Math.floor(Date.now() / 12_000) * 12_000 + 3_000;
  await up.reset();
});
afterAll(async () => {
  await up?.close();
});

/**
 * The upstream budget of an instance. The app's clock is fixed but every HTTP timer is real, so a
 * generous one keeps a slow simulator answer on a loaded machine from turning into a timeout.
 */
const BUDGET_MS = 3_000;
/** A short budget, only where a call hangs, so that the hang costs little. */
const HANG_BUDGET_MS = 1_000;

/** An app instance on the shared clock, with `budgetMs` for each upstream call. */
const instance = (overrides: Partial<TestDeps> = {}, budgetMs = BUDGET_MS) =>
  createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: String(budgetMs) }, { now: () => now, ...overrides });

/** GETs /api/gas and checks that neither the body nor any log line carries a simulator URL, port or key. */
const getGas = (deps: TestDeps) =>
  getGasWithoutLeaks(up, deps, ['/v2/api', 'apikey', 'eth_getBlockByNumber']);

async function failEveryRpc() {
  await Promise.all(up.mainnet.map((sim) => sim.fault('refuse')));
}

/** The block the explorer's oracle names when its backend is `lag` blocks behind, and that block's time. */
function explorerBlock(lag: number) {
  const number = up.etherscan.model.headNumber({ ...HEALTHY_VIEW, lagBlocks: lag });
  return { number, seconds: up.etherscan.model.timestampOf(number, HEALTHY_VIEW) };
}

/**
 * Moves the clock to `ageMs` after the time of the block `lag` behind the head (`ageMs` within that
 * many slots and one, so the head stays the same) and returns that block.
 */
function ageExplorerBlock(lag: number, ageMs: number) {
  const { model } = up.etherscan;
  const headSeconds = model.timestampOf(model.headNumber(HEALTHY_VIEW), HEALTHY_VIEW);
  now = headSeconds * 1000 + ageMs - lag * 12_000;
  const block = explorerBlock(lag);
  expect(now - block.seconds * 1000).toBe(ageMs);
  return block;
}

/** The full blocks an aged answer served at `atMs` counts after a block stamped `seconds` (aged-reading.ts). */
const slotsToAnswerEnd = (seconds: number, atMs: number) =>
  Math.ceil((atMs + 31_000 - seconds * 1000) / 12_000);

const blockTimeLogs = (deps: TestDeps) =>
  deps.logs.filter((line) => line.includes('etherscan block time unavailable'));

describe('GET /api/gas from the Etherscan backstop', () => {
  it("dates the reading by its block's own time, so a stale copy later counts every slot since that block", async () => {
    await failEveryRpc();
    // The explorer's backend 3 blocks (36 s or more) behind the chain: a minute's lag is honest.
    await up.etherscan.fault('lag', { blocks: 3 });
    const block = explorerBlock(3);
    const deps = instance();
    const live = await getGas(deps);
    expect(live.body).toMatchObject({ source: 'etherscan', blockNumber: block.number });
    expect(blockTimeLogs(deps)).toEqual([]);
    const asked = up.etherscan.requests.log.find((r) => r.keys.includes('eth_getBlockByNumber'));
    const sent = new URL(asked?.url ?? '', 'http://sim').searchParams;
    expect(Object.fromEntries(sent)).toMatchObject({
      chainid: '1',
      module: 'proxy',
      tag: `0x${block.number.toString(16)}`,
      boolean: 'false',
      apikey: up.env.ETHERSCAN_API_KEY,
    });
    expect((await getCurrentGas(deps)).blockTimestamp).toBe(block.seconds);

    // 40 s on the explorer fails too: the reading is served as the last good one, its max fees widened
    // by the slots from its block's real time (until 2026-11-28 from its read time, 3 or 4 too few).
    now += 40_000;
    await up.etherscan.fault('refuse');
    const stale = await getGas(deps);
    expect(stale.body.source).toBe('stale:etherscan');
    const blocks = slotsToAnswerEnd(block.seconds, now);
    expect(blocks).toBeGreaterThan(slotsToAnswerEnd(Math.floor((now - 40_000) / 1000), now));
    expect(stale.body.walletFeesNote).toContain(`up to ${blocks} full blocks`);
  });

  it.each<{ name: string; kind: string; mode: FaultMode; options?: FaultOptions; budgetMs?: number }>([
    // Its rate limit is a JSON-RPC result that is the message: until 2026-11-28 logged as malformed.
    { name: 'is rate-limited', kind: 'refused', mode: 'rpc-error' },
    {
      name: "answers in the API's own NOTOK shape",
      kind: 'refused',
      mode: 'malformed',
      options: { body: JSON.stringify({ status: '0', message: 'NOTOK', result: 'Invalid API Key' }) },
    },
    { name: 'hangs', kind: 'timeout', mode: 'hang', budgetMs: HANG_BUDGET_MS },
    { name: 'answers HTTP 429', kind: 'http', mode: 'http-429' },
    { name: 'answers malformed JSON', kind: 'malformed', mode: 'malformed' },
    {
      name: "has no such block on a node behind the oracle's",
      kind: 'missing',
      mode: 'lag',
      options: { blocks: 5 },
    },
  ])(
    'serves the reading with the estimated block time when the proxy $name',
    async ({ kind, mode, options, budgetMs }) => {
      await failEveryRpc();
      await up.etherscan.fault(mode, { ...options, methods: ['eth_getBlockByNumber'] });
      const deps = instance({}, budgetMs);
      const { body } = await getGas(deps);
      expect(body).toMatchObject({ source: 'etherscan', blockNumber: explorerBlock(0).number });
      // No known head: the latest the block can have is the read time.
      expect((await getCurrentGas(deps)).blockTimestamp).toBe(Math.floor(now / 1000));
      const logged = blockTimeLogs(deps);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain(`"kind":"${kind}"`);
    },
  );

  it('serves an explorer 5 blocks behind, 5 s into the slot under way: its block 65 s old (within 72 s)', async () => {
    await failEveryRpc();
    // As far behind as the known head's check calls honest, 5 s into the slot under way: until
    // 2026-11-28 refused past 60 s, so such an explorer was refused for most of every slot.
    await up.etherscan.fault('lag', { blocks: 5 });
    const block = ageExplorerBlock(5, 65_000);
    const deps = instance();
    const { res, body } = await getGas(deps);
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ source: 'etherscan', blockNumber: block.number });
    expect((await getCurrentGas(deps)).blockTimestamp).toBe(block.seconds);
    expect(blockTimeLogs(deps)).toEqual([]);
  });

  it('does not serve an explorer block 80 s old as live (past the 5 blocks it may trail and the slot under way, 72 s)', async () => {
    await failEveryRpc();
    await up.etherscan.fault('lag', { blocks: 6 });
    const block = ageExplorerBlock(6, 80_000);
    const deps = instance();
    const { res, body } = await getGas(deps);
    // Refused as live; with no last good reading it is served as one, dated by its block (see below).
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ source: 'stale:etherscan', blockNumber: block.number });
    expect(body.updatedAt).toBe(new Date(block.seconds * 1000).toISOString());
    expect(deps.logs.some((line) => line.includes('"error":"etherscan stale"'))).toBe(true);
  });

  it("serves the last good reading rather than an explorer's whose block is older than it (by the block's own time)", async () => {
    const lastGood = createMemoryLastGoodStore();
    const first = instance({ lastGood });
    const read = await getGas(first);
    expect(read.body.source).toBe('rpc-1');
    // A minute on, every provider fails and the explorer names the head, but its proxy dates that block
    // 30 s before the last good reading was taken (90 s old): its number passes the known head's check.
    const readAt = now;
    now += 60_000;
    await failEveryRpc();
    up.etherscan.setBlock({ timestamp: Math.floor(readAt / 1000) - 30 });
    const later = instance({ lastGood });
    const { body } = await getGas(later);
    expect(body).toMatchObject({ source: 'stale:rpc-1', updatedAt: read.body.updatedAt });
    expect(later.logs.some((line) => line.includes('"error":"etherscan stale"'))).toBe(true);
    // The entry keeps it, beside the failed refresh (the fleet's back-off).
    expect(await lastGood.get(CURRENT_GAS_LAST_GOOD_KEY)).toMatchObject({ readAt, failure: { count: 1 } });
  });

  it.each([
    {
      name: 'for another block',
      kind: 'wrong-block',
      fields: () => {
        const other = explorerBlock(100);
        return { number: other.number, timestamp: other.seconds };
      },
    },
    {
      name: 'with a time impossible for its number (2020)',
      kind: 'absurd',
      fields: () => ({ timestamp: 1_600_000_000 }),
    },
    {
      name: 'with a time 10 minutes ahead',
      kind: 'absurd',
      fields: () => ({ timestamp: Math.floor(now / 1000) + 600 }),
    },
  ])('does not trust a proxy answer $name: the estimate stands', async ({ kind, fields }) => {
    await failEveryRpc();
    up.etherscan.setBlock(fields());
    const deps = instance();
    const { body } = await getGas(deps);
    expect(body.source).toBe('etherscan');
    expect((await getCurrentGas(deps)).blockTimestamp).toBe(Math.floor(now / 1000));
    expect(blockTimeLogs(deps)[0]).toContain(`"kind":"${kind}"`);
  });

  it('does not ask for the block when the oracle used up the budget both calls share', async () => {
    await failEveryRpc();
    // The oracle's answer took all but 50 ms of the budget (on the app's clock): not worth a call.
    const deps = instance({
      fetch: (input, init) => {
        if (String(input).includes('gasoracle')) now += BUDGET_MS - 50;
        return fetch(input, init);
      },
    });
    const { body } = await getGas(deps);
    expect(body.source).toBe('etherscan');
    expect(up.etherscan.requests.byMethod.eth_getBlockByNumber).toBeUndefined();
    expect(blockTimeLogs(deps)[0]).toContain('"kind":"timeout"');
  });
});

/**
 * SPEC.md decision 7: with every provider down, an explorer reading whose block is 72 s to 5 minutes
 * old by its own time is no live reading, but one such a reading may be served as: `stale:etherscan`,
 * dated by its block, when no newer last good reading exists; never once its block is over 5 minutes
 * old. Until 2026-11-28 it was dropped, and the answer was 503 unless a last good reading existed.
 */
describe("GET /api/gas from an explorer whose block's own time is old", () => {
  /** Every provider down, and the explorer's proxy dating the oracle's block `ageMs` before now. */
  async function oldExplorerBlock(ageMs: number) {
    await failEveryRpc();
    const seconds = Math.floor((now - ageMs) / 1000);
    up.etherscan.setBlock({ timestamp: seconds });
    return { number: explorerBlock(0).number, seconds };
  }

  it('serves it as the last good reading, `stale:etherscan` dated by its block, and the refresh still backs off', async () => {
    const block = await oldExplorerBlock(3 * 60_000);
    const lastGood = createMemoryLastGoodStore(() => now);
    const deps = instance({ lastGood });
    const { res, body } = await getGas(deps);
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ source: 'stale:etherscan', blockNumber: block.number });
    // Its time is its block's, never the read time, and its max fees are widened by every slot since.
    expect(body.updatedAt).toBe(new Date(block.seconds * 1000).toISOString());
    expect(body.walletFeesNote).toContain(`up to ${slotsToAnswerEnd(block.seconds, now)} full blocks`);
    // The refresh failed all the same: the fleet backs off (5 s), and no slot stores the reading.
    const entry = (await lastGood.get(CURRENT_GAS_LAST_GOOD_KEY)) as {
      value: { source: string; updatedAt: string };
      readAt: number;
      failure: { count: number; retryAt: number };
    };
    expect(entry).toMatchObject({
      value: { source: 'etherscan', updatedAt: body.updatedAt },
      readAt: block.seconds * 1000,
      failure: { count: 1, retryAt: now + 5_000 },
    });
    // Within the back-off neither this instance nor another one reading the shared entry asks again,
    // though the reading is older than the refresh cadence.
    now += 3_000;
    expect(up.etherscan.requests.byMethod.gasoracle).toBe(1);
    expect((await getGas(deps)).body).toMatchObject({ source: 'stale:etherscan', updatedAt: body.updatedAt });
    const other = instance({ lastGood });
    expect((await getGas(other)).body).toMatchObject({
      source: 'stale:etherscan',
      updatedAt: body.updatedAt,
    });
    expect(up.etherscan.requests.byMethod.gasoracle).toBe(1);
    // After it, one attempt, which fails again: the next back-off is 10 s.
    now += 4_000;
    expect((await getGas(deps)).body).toMatchObject({ source: 'stale:etherscan', updatedAt: body.updatedAt });
    expect(up.etherscan.requests.byMethod.gasoracle).toBe(2);
    expect(await lastGood.get(CURRENT_GAS_LAST_GOOD_KEY)).toMatchObject({
      readAt: block.seconds * 1000,
      failure: { count: 2, retryAt: now + 10_000 },
    });
  });

  it('serves its reading rather than an older last good one', async () => {
    const lastGood = createMemoryLastGoodStore(() => now);
    expect((await getGas(instance({ lastGood }))).body.source).toBe('rpc-1');
    // Four minutes on, the explorer's block is 90 s old: a minute and a half newer than the last good reading.
    now += 4 * 60_000;
    const block = await oldExplorerBlock(90_000);
    const { body } = await getGas(instance({ lastGood }));
    expect(body).toMatchObject({ source: 'stale:etherscan', blockNumber: block.number });
    expect(body.updatedAt).toBe(new Date(block.seconds * 1000).toISOString());
  });

  it('answers 503 when its block is over 5 minutes old, and once the block it served passes 5 minutes', async () => {
    await oldExplorerBlock(5 * 60_000 + 2_000);
    const cold = instance();
    const { res } = await getGas(cold);
    expect(res.status).toBe(503);
    expect(await cold.lastGood.get(CURRENT_GAS_LAST_GOOD_KEY)).toMatchObject({ value: null });

    const block = await oldExplorerBlock(5 * 60_000 - 5_000);
    const deps = instance();
    expect((await getGas(deps)).body).toMatchObject({ source: 'stale:etherscan', blockNumber: block.number });
    // 10 s on, past the back-off, the same old block again: over 5 minutes, it is served no more.
    now += 10_000;
    expect((await getGas(deps)).res.status).toBe(503);
  });
});
