import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import type { AppDeps } from '../../lib/deps';
import { type L2GasResponse, L2GasResponseSchema } from '../../lib/schemas/l2-gas';
import { getL2Gas, L2_GAS_CACHE_KEY, selectL2SnapshotRows } from '../../lib/services/l2-gas';
import { ENTRY_KEEP_MS, requireFreshReading } from '../../lib/store/shared-read';
import { createFaultyStore, createTestDeps } from '../helpers/deps';
import { expectNoLeaks, L2_NAMES, startUpstreams, type Upstreams } from '../upstreams';
import {
  KNOWN_L2_GAS_WEI,
  KNOWN_OP_L1_FEE_WEI,
  KNOWN_OP_OPERATOR_FEE,
  KNOWN_USD,
  setKnownState,
} from '../upstreams/known-state';

// One clock for the app and the simulators' chain heads, moved by tests to step past caches.
let clock = Date.now();
const now = () => clock;
let up: Upstreams;

const { ETH: ETH_USD, POL: POL_USD } = KNOWN_USD;
const GAS = KNOWN_L2_GAS_WEI;
const L1_FEE = KNOWN_OP_L1_FEE_WEI;

beforeAll(async () => {
  up = await startUpstreams({ now });
});
afterEach(async () => {
  await up.reset();
  clock = Date.now();
});
afterAll(async () => {
  await up?.close();
});

/** USD of `wei` at `usd` per token, computed the way SPEC.md states it. */
const usdOf = (wei: bigint, usd: number) => (Number(wei) / 1e18) * usd;

/** A fresh app (own cache, provider health, last-good store); a short budget keeps hang tests quick. */
function instance(overrides: Partial<AppDeps> = {}, env: Record<string, string> = {}) {
  const deps = createTestDeps(
    { ...up.env, UPSTREAM_TIMEOUT_MS: '500', PUBLIC_BASE_URL: 'https://gas.test', ...env },
    { now, ...overrides },
  );
  const app = createApp(deps);
  return {
    deps,
    async get() {
      const res = await app.request('/api/l2-gas');
      const raw = await res.text();
      return {
        status: res.status,
        cacheControl: res.headers.get('Cache-Control'),
        lastModified: res.headers.get('Last-Modified'),
        raw,
        body: L2GasResponseSchema.parse(JSON.parse(raw)),
      };
    },
  };
}

function item(body: L2GasResponse, id: string) {
  const found = body.networks.find((n) => n.id === id);
  if (!found) throw new Error(`no ${id} in the answer`);
  return found;
}

/** Checks the envelope, the four networks in SPEC order and that no secret leaked. */
function expectWellFormed(result: { status: number; raw: string; body: L2GasResponse }, logs: string[]) {
  expect(result.status).toBe(200);
  expect(result.body.networks.map((n) => n.id)).toEqual(['arbitrum', 'optimism', 'base', 'polygon']);
  expect(result.body.tier).toBe('free');
  expect(result.body.citation).toMatch(new RegExp(`updated ${result.body.fetchedAt.replace(/\./g, '\\.')}$`));
  expectNoLeaks(up, result.raw, ...logs);
}

function expectLive(body: L2GasResponse, id: keyof typeof GAS) {
  const n = item(body, id);
  const native = id === 'polygon' ? POL_USD : ETH_USD;
  const execution = usdOf(21_000n * GAS[id], native);
  expect(n.gasPriceGwei).toBe(Number(GAS[id]) / 1e9);
  expect(n.nativeUsd).toBe(native);
  expect(Math.abs((n.executionGasCostUsd ?? 0) - execution)).toBeLessThan(0.005);
  expect(Math.abs((n.executionGasCostUsd ?? 0) - execution) / execution).toBeLessThanOrEqual(0.0005);
  if (id === 'optimism' || id === 'base') {
    const l1 = usdOf(L1_FEE[id], ETH_USD);
    expect(Math.abs((n.estimatedL1DataFeeUsd ?? 0) - l1) / l1).toBeLessThanOrEqual(0.0005);
    expect(
      Math.abs((n.estimatedWalletFeeUsd ?? 0) - (execution + l1)) / (execution + l1),
    ).toBeLessThanOrEqual(0.0005);
    expect(n.feeCompleteness).toBe('full_estimate');
  } else {
    expect(n.estimatedL1DataFeeUsd).toBeNull();
    expect(n.estimatedWalletFeeUsd).toBe(n.executionGasCostUsd);
  }
}

describe('GET /api/l2-gas', () => {
  it('serves the four networks live, with the L1 data fee on the OP Stack ones', async () => {
    setKnownState(up);
    const { deps, get } = instance();
    const result = await get();
    expectWellFormed(result, deps.logs);
    expect(result.cacheControl).toBe('public, max-age=60, s-maxage=60');
    for (const name of L2_NAMES) expectLive(result.body, name);
    expect(item(result.body, 'arbitrum')).toMatchObject({
      name: 'Arbitrum One',
      nativeToken: 'ETH',
      feeModel: 'rollup_arbitrum_nitro',
      feeCompleteness: 'execution_only',
    });
    expect(item(result.body, 'optimism').feeModel).toBe('rollup_op_stack');
    expect(item(result.body, 'base').feeModel).toBe('rollup_op_stack');
    expect(item(result.body, 'polygon')).toMatchObject({
      nativeToken: 'POL',
      feeModel: 'sidechain',
      feeCompleteness: 'full_estimate',
    });
  });

  it('reads each network once for concurrent requests, and from the cache until its refresh point', async () => {
    // A generous budget: on a loaded machine a 500 ms timeout could degrade the answer (cached 15 s).
    const { get } = instance({}, { UPSTREAM_TIMEOUT_MS: '5000' });
    const first = await Promise.all([get(), get(), get()]);
    expect(first.map((r) => r.cacheControl)).toEqual(Array(3).fill(first[0]?.cacheControl));
    const callsOf = (name: (typeof L2_NAMES)[number]) =>
      up.l2[name].map((sim) => sim.requests.byMethod.eth_gasPrice ?? 0);
    const afterFirst = Object.fromEntries(L2_NAMES.map((name) => [name, callsOf(name)]));
    for (const name of L2_NAMES) {
      // One read for the three requests: the primary is asked once. A slow answer may let the
      // hedge ask another provider once too (timing-dependent, so not pinned), never the same twice.
      expect(afterFirst[name]?.[0], name).toBe(1);
      for (const calls of afterFirst[name] ?? []) expect(calls, name).toBeLessThanOrEqual(1);
    }
    // Refreshed a sixth of the 60 s cadence early (50 s), so a fleet never serves a reading past 60 s.
    clock += 49_000;
    await get();
    for (const name of L2_NAMES) expect(callsOf(name), name).toEqual(afterFirst[name]);
  });

  it('serves Base without its L1 fee, as execution_only, when every getL1Fee call fails', async () => {
    setKnownState(up);
    await Promise.all(
      up.l2.base.map((sim) =>
        sim.fault('rpc-error', { methods: ['eth_call'], code: -32000, message: 'execution reverted' }),
      ),
    );
    const { deps, get } = instance();
    const result = await get();
    expectWellFormed(result, deps.logs);
    const base = item(result.body, 'base');
    expect(base.gasPriceGwei).toBe(0.0061);
    const execution = usdOf(21_000n * GAS.base, ETH_USD);
    expect(Math.abs((base.executionGasCostUsd ?? 0) - execution) / execution).toBeLessThanOrEqual(0.0005);
    expect(base.estimatedL1DataFeeUsd).toBeNull();
    expect(base.estimatedWalletFeeUsd).toBeNull();
    expect(base.feeCompleteness).toBe('execution_only');
    expect(base.feeNote).toMatch(/L1 data fee could not be read/);
    // The retry on the other provider failed the same way, and the log says how (not 'malformed').
    const unavailable = deps.logs.find((line) => line.includes('l1 fee unavailable'));
    expect(unavailable).toContain('"kind":"rpc-error"');
    expectLive(result.body, 'optimism');
    // The path's Cache-Control (SPEC decision 12), though the service reads it again after 15 s.
    expect(result.cacheControl).toBe('public, max-age=60, s-maxage=60');
  });

  it("keeps the oracle's last good L1 fee for 5 minutes when only getL1Fee fails, saying when it was read", async () => {
    setKnownState(up);
    const { deps, get } = instance();
    const healthy = item((await get()).body, 'base');
    expect(healthy.feeCompleteness).toBe('full_estimate');
    const readAt = clock;
    await Promise.all(
      up.l2.base.map((sim) =>
        sim.fault('rpc-error', { methods: ['eth_call'], code: -32000, message: 'execution reverted' }),
      ),
    );
    clock += 61_000;
    const kept = await get();
    expect(kept.status).toBe(200);
    expectNoLeaks(up, kept.raw, ...deps.logs);
    // The citation's time is the data's: the L1 fee's, a minute before the answer was assembled.
    expect(kept.body.citation).toMatch(
      new RegExp(`updated ${new Date(readAt).toISOString().replace(/\./g, '\\.')}$`),
    );
    const base = item(kept.body, 'base');
    expect(base.gasPriceGwei).toBe(0.0061);
    expect(base.feeCompleteness).toBe('full_estimate');
    expect(base.estimatedL1DataFeeUsd).toBe(healthy.estimatedL1DataFeeUsd);
    expect(base.feeNote).toContain(
      `the GasPriceOracle's last good answer, taken at ${new Date(readAt).toISOString()} (61 s earlier)`,
    );
    expect(base.feeNote).not.toContain('read live');
    // Every figure is at least as fresh as Last-Modified: here, the L1 fee's time.
    expect(kept.lastModified).toBe(new Date(readAt).toUTCString());
    // The history keeps fresh samples only: not an L1 fee read a minute before.
    const row = selectL2SnapshotRows(await getL2Gas(deps)).find((r) => r.network === 'base');
    expect(row?.l1DataFeeUsd).toBeNull();
    // Past 5 minutes since the oracle last answered, the wallet fee is unknown again.
    clock += 4 * 60_000;
    const later = item((await get()).body, 'base');
    expect(later.feeCompleteness).toBe('execution_only');
    expect(later.estimatedL1DataFeeUsd).toBeNull();
  });

  it('serves Optimism as execution_only, not a full estimate, when its oracle answers an L1 fee of 0', async () => {
    setKnownState(up);
    for (const sim of up.l2.optimism) sim.setL1Fee(0n);
    const { deps, get } = instance();
    const result = await get();
    expectWellFormed(result, deps.logs);
    const optimism = item(result.body, 'optimism');
    expect(optimism.estimatedL1DataFeeUsd).toBeNull();
    expect(optimism.estimatedWalletFeeUsd).toBeNull();
    expect(optimism.feeCompleteness).toBe('execution_only');
    expect(optimism.feeNote).toMatch(/L1 data fee could not be read/);
    expectLive(result.body, 'base');
  });

  it('does not hold a failing getL1Fee against the provider that answers the gas price', async () => {
    setKnownState(up);
    await Promise.all(
      up.l2.base.map((sim) =>
        sim.fault('rpc-error', { methods: ['eth_call'], code: -32000, message: 'execution reverted' }),
      ),
    );
    const { get } = instance();
    // Each degraded answer lives 15 s; every refresh asks the second provider for the L1 fee again.
    for (let i = 0; i < 3; i++) {
      expect(item((await get()).body, 'base').feeCompleteness).toBe('execution_only');
      clock += 16_000;
    }
    // The primary goes away: the second provider, never wrong about the gas price, must answer live.
    await up.l2.base[0]?.fault('refuse');
    const secondary = up.l2.base[1];
    const before = secondary?.requests.byMethod.eth_gasPrice ?? 0;
    const base = item((await get()).body, 'base');
    expect(secondary?.requests.byMethod.eth_gasPrice ?? 0).toBeGreaterThan(before);
    expect(base.gasPriceGwei).toBe(0.0061);
    expect(base.feeNote).not.toMatch(/last good|unavailable/i);
  });

  it('serves Base without its L1 fee when getL1Fee hangs, without losing the gas price', async () => {
    setKnownState(up);
    await Promise.all(up.l2.base.map((sim) => sim.fault('hang', { methods: ['eth_call'] })));
    const { get } = instance();
    const base = item((await get()).body, 'base');
    expect(base.gasPriceGwei).toBe(0.0061);
    expect(base.estimatedL1DataFeeUsd).toBeNull();
    expect(base.feeCompleteness).toBe('execution_only');
  });

  it("reads Base's L1 fee from the next provider when only the first one's getL1Fee fails", async () => {
    setKnownState(up);
    await up.l2.base[0]?.fault('rpc-error', { methods: ['eth_call'] });
    const { get } = instance();
    const result = await get();
    expectLive(result.body, 'base');
    expect(up.l2.base[1]?.requests.byMethod.eth_call).toBeGreaterThanOrEqual(1);
  });

  it('serves the gwei figures with null USD fields when every price source is down', async () => {
    setKnownState(up);
    await Promise.all([up.coingecko, up.coinbase, up.kraken].map((sim) => sim.fault('http-500')));
    const { deps, get } = instance();
    const result = await get();
    expectWellFormed(result, deps.logs);
    for (const name of L2_NAMES) {
      const n = item(result.body, name);
      expect(n.gasPriceGwei).toBe(Number(GAS[name]) / 1e9);
      expect(n).toMatchObject({
        nativeUsd: null,
        executionGasCostUsd: null,
        estimatedL1DataFeeUsd: null,
        estimatedWalletFeeUsd: null,
      });
      expect(n.feeNote).toMatch(/USD figures unavailable/);
    }
    // A degraded answer is read again after 15 s in the process; clients get the path's 60 s.
    expect(result.cacheControl).toBe('public, max-age=60, s-maxage=60');
    const gasPriceCalls = () =>
      up.l2.arbitrum.reduce((sum, sim) => sum + (sim.requests.byMethod.eth_gasPrice ?? 0), 0);
    const priceCalls = () => up.coingecko.requests.total;
    const asked = priceCalls();
    clock += 14_000;
    await get();
    expect(priceCalls()).toBe(asked);
    // Past 15 s the answer is assembled again: the price sources are asked again, while the networks'
    // readings, fresh for 60 s in their shared entries, are not read again.
    clock += 2_000;
    await get();
    expect(priceCalls()).toBeGreaterThan(asked);
    expect(gasPriceCalls()).toBe(1);
  });

  it('assembles the answer again after 15 s while its USD figures stand on a last good price', async () => {
    setKnownState(up);
    const { get } = instance();
    expect(item((await get()).body, 'optimism').nativeUsd).not.toBeNull();
    await Promise.all([up.coingecko, up.coinbase, up.kraken].map((sim) => sim.fault('http-500')));
    // Past the answer's 60 s: the networks are read again, the price is its last good value (stale-*).
    clock += 61_000;
    expect(item((await get()).body, 'optimism').nativeUsd).not.toBeNull();
    const asked = up.coingecko.requests.total;
    clock += 16_000;
    await get();
    expect(up.coingecko.requests.total).toBeGreaterThan(asked);
  });

  it('serves a network from its last good reading for 5 minutes after its providers fail, then null numbers', async () => {
    setKnownState(up);
    const { get } = instance();
    expectLive((await get()).body, 'optimism');
    await Promise.all(up.l2.optimism.map((sim) => sim.fault('refuse')));
    clock += 61_000;
    const stale = item((await get()).body, 'optimism');
    expect(stale.gasPriceGwei).toBe(0.001234567);
    expect(stale.estimatedL1DataFeeUsd).not.toBeNull();
    expect(stale.feeNote).toMatch(/last good reading, taken at .* \(61 s earlier\)/);
    clock += 4 * 60_000;
    const unavailable = (await get()).body;
    expect(item(unavailable, 'optimism')).toMatchObject({
      gasPriceGwei: null,
      nativeUsd: ETH_USD,
      executionGasCostUsd: null,
      estimatedL1DataFeeUsd: null,
      estimatedWalletFeeUsd: null,
    });
    expect(item(unavailable, 'optimism').feeNote).toMatch(/^Reading unavailable/);
    expectLive(unavailable, 'base');
  });

  it('dates its citation and Last-Modified by the oldest reading served, a last good one keeping its own time', async () => {
    setKnownState(up);
    const { get, deps } = instance();
    const readAt = clock;
    expect((await get()).body.citation).toMatch(new RegExp(`updated ${new Date(readAt).toISOString()}$`));
    for (const name of L2_NAMES) await Promise.all(up.l2[name].map((sim) => sim.fault('refuse')));
    clock += 94_000;
    const stale = await get();
    for (const network of stale.body.networks) expect(network.feeNote).toMatch(/last good reading/);
    // The data is 94 s old: the answer says so in its envelope and header, not only in each feeNote.
    expect(stale.body.citation).toMatch(new RegExp(`updated ${new Date(readAt).toISOString()}$`));
    expect(stale.lastModified).toBe(new Date(readAt).toUTCString());
    expect(stale.body.fetchedAt).toBe(new Date(clock).toISOString());
    // Arbitrum back: its fresh reading beside three last good ones, the answer is as old as the oldest.
    await Promise.all(up.l2.arbitrum.map((sim) => sim.reset()));
    clock += 20_000;
    requireFreshReading(deps, 'l2-gas:v2:arbitrum');
    deps.cache.delete(L2_GAS_CACHE_KEY);
    const mixed = await get();
    expect(mixed.body.networks.find((n) => n.id === 'arbitrum')?.feeNote).not.toMatch(/last good/);
    expect(mixed.lastModified).toBe(new Date(readAt).toUTCString());
  });

  it('answers without a network when the last-good store hangs or holds something unreadable', async () => {
    setKnownState(up);
    await Promise.all(up.l2.optimism.map((sim) => sim.fault('refuse')));
    const hanging = instance({ lastGood: createFaultyStore('hang') });
    const first = await hanging.get();
    expectWellFormed(first, hanging.deps.logs);
    expect(item(first.body, 'optimism').gasPriceGwei).toBeNull();
    expectLive(first.body, 'base');

    const garbage = {
      value: { gasPriceWei: '12abc', l1FeeWei: null, readAt: clock },
      readAt: clock,
      failure: null,
    };
    const unreadable = instance({ lastGood: createFaultyStore('garbage', garbage) });
    const second = await unreadable.get();
    expect(item(second.body, 'optimism').feeNote).toMatch(/^Reading unavailable/);
    expect(unreadable.deps.logs.some((line) => line.includes('ignored an unreadable shared entry'))).toBe(
      true,
    );
  });

  it('documents the endpoint and its partial failure in /openapi.json', async () => {
    const deps = createTestDeps({ ...up.env, PUBLIC_BASE_URL: 'https://gas.test' });
    const doc = (await (await createApp(deps).request('/openapi.json')).json()) as {
      paths: Record<string, { get?: { description?: string; responses?: Record<string, unknown> } }>;
      components: { schemas: Record<string, unknown> };
    };
    const operation = doc.paths['/api/l2-gas']?.get;
    expect(operation?.description).toMatch(/Partial failure/);
    expect(operation?.description).toMatch(/last good reading/);
    expect(Object.keys(operation?.responses ?? {})).toEqual(['200', '304', '405']);
    expect(doc.components.schemas).toHaveProperty('L2GasResponse');
    expect(doc.components.schemas).toHaveProperty('L2NetworkReading');
  });
});

describe('GET /api/l2-gas in a fleet still running the release before (a rolling deployment)', () => {
  it("neither serves the release before's L2 entries, which lack the operator fee and Arbitrum's base fee, nor touches them", async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    const { deps, get } = instance();
    // Fresh entries as the release before wrote them, under its keys: its stored reading had no
    // operatorFee and no l1GasBaseFeeWei, which would read as unknown here.
    const before = {
      optimism: {
        gasPriceWei: String(GAS.optimism),
        l1FeeWei: String(L1_FEE.optimism),
        readAt: clock,
        baseFeeWei: String(GAS.optimism),
        suggestedTipWei: '1000',
        l1GasUnits: null,
        l1FeeReadAt: null,
      },
      arbitrum: {
        gasPriceWei: String(GAS.arbitrum),
        l1FeeWei: null,
        readAt: clock,
        baseFeeWei: String(GAS.arbitrum),
        suggestedTipWei: null,
        l1GasUnits: '9412',
        l1FeeReadAt: null,
      },
    };
    for (const [id, value] of Object.entries(before)) {
      await deps.lastGood.set(`l2-gas:${id}`, { value, readAt: clock, failure: null }, ENTRY_KEEP_MS);
    }
    const optimism = item((await get()).body, 'optimism');
    // Read live (the operator fee the chain sets), not taken from the entry without one.
    expect(optimism.estimatedOperatorFeeUsd).toBeGreaterThan(0);
    expect(optimism.feeNote).not.toContain('Operator fee unknown');
    const arbitrum = (await getL2Gas(deps)).snapshots.find((s) => s.network === 'arbitrum');
    expect(arbitrum?.l1ComponentWei).not.toBeNull();
    // The release before still finds its own entries as it wrote them.
    for (const [id, value] of Object.entries(before)) {
      expect(await deps.lastGood.get(`l2-gas:${id}`)).toMatchObject({ value });
    }
  });
});
