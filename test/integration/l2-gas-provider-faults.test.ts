import { parseGwei } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { L2_NETWORKS } from '../../lib/l2/networks';
import { estimateL2 } from '../../lib/mcp/tools/transaction-cost-l2';
import { type L2GasResponse, L2GasResponseSchema } from '../../lib/schemas/l2-gas';
import { L2_GAS_CACHE_KEY } from '../../lib/services/l2-gas';
import { requireFreshReading } from '../../lib/store/shared-read';
import { createTestDeps } from '../helpers/deps';
import {
  expectNoLeaks,
  type FaultMode,
  type FaultOptions,
  L2_NAMES,
  type L2Name,
  startUpstreams,
  type Upstreams,
} from '../upstreams';
import {
  KNOWN_L2_GAS_WEI,
  KNOWN_OP_L1_FEE_WEI,
  KNOWN_OP_OPERATOR_FEE,
  setKnownState as setKnownStateOf,
} from '../upstreams/known-state';

/*
 * Every fault a single L2 provider can show (README "Layer 2 gas": the same chain-id, sanity and
 * freshness checks and hedged failover as mainnet), Arbitrum's NodeInterface read going wrong, and a
 * whole network going down beside three healthy ones.
 */

// One clock for the app and the simulators' chain heads, moved by tests to step past caches.
let clock = Date.now();
const now = () => clock;
let up: Upstreams;

/** What the second (healthy) provider of each network answers. */
const HEALTHY = KNOWN_L2_GAS_WEI;
/** What the first provider answers: sane too, but distinct, so the served value names its provider. */
const PRIMARY = {
  arbitrum: parseGwei('0.0207'),
  optimism: 2_345_678n,
  base: parseGwei('0.0122'),
  polygon: parseGwei('62.5'),
} as const;
/** Block time of each simulated chain (test/upstreams/chain-profiles.ts). */
const BLOCK_MS: Record<L2Name, number> = { arbitrum: 250, optimism: 2000, base: 2000, polygon: 2000 };
const ENV_KEY: Record<L2Name, string> = {
  arbitrum: 'ARBITRUM_RPC_URLS',
  optimism: 'OPTIMISM_RPC_URLS',
  base: 'BASE_RPC_URLS',
  polygon: 'POLYGON_RPC_URLS',
};
/** Operator names for the two providers of a network (SPEC extension 20: `name=url`). */
const labelsOf = (name: L2Name) => [`${name}-main`, `${name}-backup`] as const;

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

/** Known prices everywhere, the primary's and the backup's gas prices, and the OP Stack L1 fees. */
function setKnownState(primary: Readonly<Record<L2Name, bigint>> = PRIMARY) {
  const gasWei = Object.fromEntries(L2_NAMES.map((name) => [name, [primary[name], HEALTHY[name]]]));
  setKnownStateOf(up, { gasWei: gasWei as Record<L2Name, bigint[]> });
}

/**
 * A fresh app (own cache, provider health, last-good store) whose providers carry operator names, the
 * first `providers` of each network. The budget is short only where a provider hangs; elsewhere ample,
 * so a loaded machine's slow but healthy answers are never taken for faults.
 */
function instance(budgetMs = 10_000, providers = 2) {
  const named = Object.fromEntries(
    L2_NAMES.map((name) => [
      ENV_KEY[name],
      up.l2[name]
        .slice(0, providers)
        .map((sim, i) => `${labelsOf(name)[i]}=${sim.url}`)
        .join(','),
    ]),
  );
  const deps = createTestDeps(
    { ...up.env, ...named, UPSTREAM_TIMEOUT_MS: String(budgetMs), PUBLIC_BASE_URL: 'https://gas.test' },
    { now },
  );
  const app = createApp(deps);
  return {
    deps,
    logs: deps.logs,
    /** One request; checks the status, the four networks in SPEC order and that nothing leaked. */
    async get(): Promise<L2GasResponse> {
      const res = await app.request('/api/l2-gas');
      const raw = await res.text();
      expect(res.status).toBe(200);
      expectNoLeaks(up, raw, ...deps.logs);
      const body = L2GasResponseSchema.parse(JSON.parse(raw));
      expect(body.networks.map((n) => n.id)).toEqual(['arbitrum', 'optimism', 'base', 'polygon']);
      return body;
    },
  };
}

function item(body: L2GasResponse, id: L2Name) {
  const found = body.networks.find((n) => n.id === id);
  if (!found) throw new Error(`no ${id} in the answer`);
  return found;
}

const gwei = (wei: bigint) => Number(wei) / 1e9;

/** Served from a live read at exactly `wei`, with every figure and no degradation in its note. */
function expectLiveAt(body: L2GasResponse, id: L2Name, wei: bigint) {
  const n = item(body, id);
  expect(n.gasPriceGwei, id).toBe(gwei(wei));
  expect(n.executionGasCostUsd, id).toBeGreaterThan(0);
  expect(n.feeNote, id).not.toMatch(/unavailable|last good/i);
  if (id === 'optimism' || id === 'base') {
    expect(n.feeCompleteness, id).toBe('full_estimate');
    expect(n.estimatedL1DataFeeUsd, id).toBeGreaterThan(0);
  }
}

/** Served live from either of its providers (a slow primary may be overtaken by the hedge). */
function expectLive(body: L2GasResponse, id: L2Name) {
  const n = item(body, id);
  expect([gwei(PRIMARY[id]), gwei(HEALTHY[id])], id).toContain(n.gasPriceGwei);
  expectLiveAt(body, id, n.gasPriceGwei === gwei(PRIMARY[id]) ? PRIMARY[id] : HEALTHY[id]);
}

/** The JSON fields of every log line with this message. */
function logged(logs: readonly string[], message: string): Record<string, unknown>[] {
  const marker = ` ${message} {`;
  return logs
    .filter((line) => line.includes(marker))
    .map(
      (line) => JSON.parse(line.slice(line.indexOf(marker) + marker.length - 1)) as Record<string, unknown>,
    );
}

// Each fault as the first provider shows it, and the kind (and code) its failed attempt is logged with.
const PRIMARY_FAULTS: Array<{ fault: FaultMode; options?: FaultOptions; kind: string; code?: number }> = [
  { fault: 'http-500', kind: 'http', code: 500 },
  { fault: 'http-429', kind: 'rate-limited', code: 429 },
  { fault: 'malformed', kind: 'malformed' },
  {
    fault: 'rpc-error',
    options: {
      methods: ['eth_gasPrice'],
      code: -32601,
      message: 'the method eth_gasPrice does not exist/is not available',
    },
    kind: 'rpc-error',
    code: -32601,
  },
  { fault: 'wrong-chain', kind: 'wrong-chain' },
  { fault: 'stale', kind: 'stale' },
  { fault: 'absurd', kind: 'absurd' },
  // A hung provider never fails on its own: the hedge asks the next one, and the hung one is outrun.
  { fault: 'hang', kind: 'outrun' },
  { fault: 'refuse', kind: 'network' },
];
const PRIMARY_CASES = L2_NAMES.flatMap((name) => PRIMARY_FAULTS.map((fault) => ({ name, ...fault })));

describe('GET /api/l2-gas when one L2 provider fails', () => {
  it.each(PRIMARY_CASES)(
    '$name: a first provider with $fault is skipped, logged as $kind, and the next one serves live',
    async ({ name, fault, options, kind, code }) => {
      setKnownState();
      await up.l2[name][0]?.fault(fault, options);
      const { get, logs } = instance(fault === 'hang' ? 1000 : 10_000);
      const body = await get();
      expectLiveAt(body, name, HEALTHY[name]);
      for (const other of L2_NAMES) if (other !== name) expectLive(body, other);
      const [main, backup] = labelsOf(name);
      expect(logged(logs, 'rpc attempt failed')).toContainEqual(
        code === undefined
          ? expect.objectContaining({ pool: name, provider: main, kind })
          : expect.objectContaining({ pool: name, provider: main, kind, code }),
      );
      // The backup's answer was accepted, not failed as well.
      expect(logged(logs, 'rpc attempt failed')).not.toContainEqual(
        expect.objectContaining({ pool: name, provider: backup }),
      );
      expect(up.l2[name][1]?.requests.byMethod.eth_gasPrice).toBeGreaterThanOrEqual(1);
    },
  );

  // README "Providers": a batch answered with one error is asked again at once singly, and remembered,
  // so the provider itself serves; it is not failed over.
  it.each(L2_NAMES)(
    '%s: a first provider that refuses batches is asked singly and serves live',
    async (name) => {
      setKnownState();
      await up.l2[name][0]?.fault('no-batch');
      const { get, logs } = instance();
      const body = await get();
      expectLiveAt(body, name, PRIMARY[name]);
      expect(logged(logs, 'rpc provider refuses batches; asking singly')).toContainEqual({
        pool: name,
        provider: labelsOf(name)[0],
      });
      const singles = up.l2[name][0]?.requests.log.filter(
        (r) => r.keys.length === 1 && r.keys[0] === 'eth_gasPrice',
      );
      expect(singles?.length).toBeGreaterThanOrEqual(1);
    },
  );

  /** A first provider whose head trails the best block seen by `seconds` of block time (and no more). */
  async function lagPrimary(name: L2Name, seconds: number) {
    setKnownState();
    const app = instance();
    // A first read with both providers healthy: the pool remembers the best block seen.
    expectLiveAt(await app.get(), name, PRIMARY[name]);
    await up.l2[name][0]?.fault('lag', { blocks: Math.ceil((seconds * 1000) / BLOCK_MS[name]) });
    // Two seconds on, the network must be read again: the best block seen is two seconds old.
    clock += 2_000;
    requireFreshReading(app.deps, `l2-gas:v2:${name}`);
    app.deps.cache.delete(L2_GAS_CACHE_KEY);
    return { body: await app.get(), logs: app.logs };
  }

  it.each(L2_NAMES)(
    '%s: a first provider lagging the best head by 75 s of block time is refused and the next one serves',
    async (name) => {
      const { body, logs } = await lagPrimary(name, 75);
      expectLiveAt(body, name, HEALTHY[name]);
      expect(logged(logs, 'rpc attempt failed')).toContainEqual(
        expect.objectContaining({ pool: name, provider: labelsOf(name)[0] }),
      );
    },
  );

  it.each(L2_NAMES)(
    '%s: a first provider 45 s behind the best head (under the 60-s age limit) is refused as lag',
    async (name) => {
      const { logs } = await lagPrimary(name, 45);
      expect(logged(logs, 'rpc attempt failed')).toContainEqual(
        expect.objectContaining({ pool: name, provider: labelsOf(name)[0], kind: 'lag' }),
      );
    },
  );

  it.each(L2_NAMES)('%s: a first provider 20 s behind the best head still serves', async (name) => {
    const { body, logs } = await lagPrimary(name, 20);
    expectLiveAt(body, name, PRIMARY[name]);
    expect(logged(logs, 'rpc attempt failed')).toEqual([]);
  });
});

describe('GET /api/l2-gas when an OP Stack oracle call is slow or fails', () => {
  it('does not hedge or strike a first provider whose gas price is in while its oracle call is slow', async () => {
    setKnownState();
    const [primary, backup] = up.l2.optimism;
    // Slower than the 350 ms hedge delay, within the oracle call's 500 ms grace.
    await primary!.fault('delay', { methods: ['eth_call'], ms: 420 });
    const { deps, get } = instance();
    for (let round = 0; round < 3; round++) {
      clock += 61_000;
      requireFreshReading(deps, 'l2-gas:v2:optimism');
      deps.cache.delete(L2_GAS_CACHE_KEY);
      expectLiveAt(await get(), 'optimism', PRIMARY.optimism);
    }
    expect(backup!.requests.total).toBe(0);
    expect(logged(deps.logs, 'rpc attempt failed').filter((f) => f.pool === 'optimism')).toEqual([]);
  });

  it('asks the other providers for the L1 fee again only if the network pool would ask them now', async () => {
    setKnownState();
    const [primary, backup] = up.l2.base;
    // The first provider is rate-limited for a minute; the second serves the gas price, but its
    // oracle call fails: the retry must not go back to the first inside its Retry-After.
    await primary!.fault('http-429', { retryAfter: 60 });
    await backup!.fault('rpc-error', { methods: ['eth_call'], code: -32000, message: 'execution reverted' });
    const { get } = instance();
    const base = item(await get(), 'base');
    expect(base.gasPriceGwei).toBe(gwei(HEALTHY.base));
    expect(base.feeCompleteness).toBe('execution_only');
    // Its oracle reads are the first attempt's own, each a request of its own (answered 429 beside the
    // gas-price batch: getL1Fee, getOperatorFee, the operator fee parameters); no retry's.
    const oracleReads = primary!.requests.log.filter((r) => !r.keys.includes('eth_gasPrice'));
    expect(oracleReads.map((r) => r.keys).sort()).toEqual([['eth_call'], ['eth_call'], ['eth_getStorageAt']]);
  });

  it("reads the L1 fee live from a provider that refuses batches of more than 3 calls (dRPC's free tier)", async () => {
    setKnownState();
    const sim = up.l2.optimism[0]!;
    // Its only provider: no other one to ask the L1 fee again of.
    const { get } = instance(10_000, 1);
    const healthy = item(await get(), 'optimism');
    expect(healthy.feeNote).not.toMatch(/last good/);
    // From now on it refuses any batch over 3 calls with an HTTP 500 (the chain id is checked already,
    // so the gas-price batch holds 3: eth_gasPrice, the latest block, the tip).
    await sim.fault('batch-limit', { max: 3 });
    const asked = sim.requests.log.length;
    clock += 61_000;
    const body = await get();
    expectLiveAt(body, 'optimism', PRIMARY.optimism);
    const optimism = item(body, 'optimism');
    expect(optimism.estimatedL1DataFeeUsd).toBe(healthy.estimatedL1DataFeeUsd);
    expect(optimism.estimatedWalletFeeUsd).toBe(healthy.estimatedWalletFeeUsd);
    expect(optimism.estimatedOperatorFeeUsd).toBe(0);
    expect(optimism.feeNote).not.toMatch(/last good|unknown|could not be read/);
    // Nothing it was sent since was over its limit: the contract calls went as single requests.
    const since = sim.requests.log.slice(asked);
    expect(since.some((r) => r.keys.includes('eth_call'))).toBe(true);
    expect(since.every((r) => r.keys.length <= 3)).toBe(true);
  });
});

describe("GET /api/l2-gas from a provider that refuses batches of more than 3 calls (dRPC's free tier)", () => {
  /** Its only provider, refusing from the start; each request it was sent, as its sorted methods. */
  async function coldDrpc() {
    setKnownState();
    const sim = up.l2.optimism[0]!;
    await sim.fault('batch-limit', { max: 3 });
    const app = instance(10_000, 1);
    expectLiveAt(await app.get(), 'optimism', PRIMARY.optimism);
    const sent = (from = 0) => sim.requests.log.slice(from).map((r) => [...r.keys].sort());
    return { ...app, sim, sent };
  }

  it('sends the contract calls once when the first batch (with the chain id) is refused', async () => {
    const { sent, logs } = await coldDrpc();
    // The refused batch (the chain id and the three reads), each of its calls asked again singly, and
    // the contract calls beside it once: until 2026-11-28 the refusal ran the whole attempt again,
    // the three contract calls included.
    expect(sent().filter((keys) => keys.length > 1)).toEqual([
      ['eth_chainId', 'eth_gasPrice', 'eth_getBlockByNumber', 'eth_maxPriorityFeePerGas'],
    ]);
    expect(sent().filter((keys) => keys.includes('eth_call'))).toEqual([['eth_call'], ['eth_call']]);
    expect(sent().filter((keys) => keys.includes('eth_getStorageAt'))).toEqual([['eth_getStorageAt']]);
    expect(sent()).toHaveLength(1 + 4 + 3);
    expect(logged(logs, 'rpc provider refuses batches; asking singly')).toHaveLength(1);
  });

  it('batches again after 10 minutes without the chain-id recheck, so no batch is refused again', async () => {
    const { sent, sim, get, logs } = await coldDrpc();
    const asked = sim.requests.log.length;
    // Past the 10 minutes of single requests, and the chain id is due again too.
    clock += 11 * 60_000;
    expectLiveAt(await get(), 'optimism', PRIMARY.optimism);
    // The three reads in one batch (within the limit), the chain id singly beside it, the contract
    // calls: until 2026-11-28 the chain id went into the batch, which was refused every 10 minutes.
    expect(sent(asked).filter((keys) => keys.length > 1)).toEqual([
      ['eth_gasPrice', 'eth_getBlockByNumber', 'eth_maxPriorityFeePerGas'],
    ]);
    expect(sent(asked).filter((keys) => keys.includes('eth_chainId'))).toEqual([['eth_chainId']]);
    expect(sent(asked)).toHaveLength(1 + 1 + 3);
    expect(logged(logs, 'rpc provider refuses batches; asking singly')).toHaveLength(1);
  });
});

describe("GET /api/l2-gas when Arbitrum's NodeInterface call fails", () => {
  const NODE_INTERFACE_CALL = { methods: ['eth_call'] };

  it('serves estimatedL1GasUnits from the NodeInterface when it answers', async () => {
    setKnownState(HEALTHY);
    const { get } = instance();
    const arbitrum = item(await get(), 'arbitrum');
    expect(arbitrum.gasPriceGwei).toBe(gwei(HEALTHY.arbitrum));
    expect(arbitrum.estimatedL1GasUnits).toBeGreaterThan(0);
    for (const sim of up.l2.arbitrum) sim.setL1GasEstimate(32_000_000n);
    const { get: again } = instance();
    // The range's edge, the block gas limit, is still accepted.
    expect(item(await again(), 'arbitrum').estimatedL1GasUnits).toBe(32_000_000);
  });

  const CASES: Array<{ what: string; kind: string; arrange: () => Promise<void> }> = [
    {
      what: 'hangs',
      kind: 'timeout',
      arrange: async () => {
        await Promise.all(up.l2.arbitrum.map((sim) => sim.fault('hang', NODE_INTERFACE_CALL)));
      },
    },
    {
      what: 'answers half a JSON body',
      kind: 'malformed',
      arrange: async () => {
        await Promise.all(up.l2.arbitrum.map((sim) => sim.fault('malformed', NODE_INTERFACE_CALL)));
      },
    },
    {
      what: 'answers data that is not three ABI words',
      kind: 'malformed',
      arrange: async () => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1234' });
        await Promise.all(
          up.l2.arbitrum.map((sim) => sim.fault('malformed', { ...NODE_INTERFACE_CALL, body })),
        );
      },
    },
    {
      what: 'answers 1e16 gas units',
      kind: 'malformed',
      arrange: async () => {
        await Promise.all(up.l2.arbitrum.map((sim) => sim.fault('absurd', NODE_INTERFACE_CALL)));
      },
    },
    {
      what: 'answers one unit above the block gas limit',
      kind: 'malformed',
      arrange: async () => {
        for (const sim of up.l2.arbitrum) sim.setL1GasEstimate(32_000_001n);
      },
    },
  ];

  it("reads the L1 component, with its own base fee, from the next provider when only the first one's NodeInterface fails", async () => {
    setKnownState();
    const [primary, backup] = up.l2.arbitrum;
    // Distinct base fees and units, so the served pair names the provider it came from.
    primary!.setBaseFees([parseGwei('0.0111')]);
    primary!.setL1GasEstimate(7_000n);
    backup!.setBaseFees([parseGwei('0.0097')]);
    backup!.setL1GasEstimate(9_000n);
    await primary!.fault('rpc-error', {
      ...NODE_INTERFACE_CALL,
      code: -32000,
      message: 'execution reverted',
    });
    const { deps, get, logs } = instance();
    const body = await get();
    // The gas price is the first provider's; the units are the second's, read fresh, not kept.
    expectLiveAt(body, 'arbitrum', PRIMARY.arbitrum);
    const arbitrum = item(body, 'arbitrum');
    expect(arbitrum.estimatedL1GasUnits).toBe(9_000);
    // Its note is the network's own, as for units read with the gas price: nothing kept, nothing missing.
    expect(arbitrum.feeNote).toBe(L2_NETWORKS.find((n) => n.id === 'arbitrum')?.feeNote);
    expect(body.citation).toMatch(
      new RegExp(`updated ${new Date(clock).toISOString().replace(/\./g, '\\.')}$`),
    );
    // The units go with the base fee the same NodeInterface answer gave (Nitro's basis), the second's.
    const estimate = await estimateL2(deps, { network: 'arbitrum', gasLimit: 21_000, blobs: 0 }, 'arbitrum');
    expect(estimate.data.l1GasUnits).toBe(9_000);
    expect(estimate.data.l1DataFee?.wei).toBe(String(9_000n * parseGwei('0.0097')));
    expect(estimate.data.notes.join(' ')).not.toMatch(/last good/);
    const stored = (await deps.lastGood.get('l2-gas:v2:arbitrum')) as { value: Record<string, unknown> };
    expect(stored.value).toMatchObject({ l1GasUnits: '9000', l1GasBaseFeeWei: String(parseGwei('0.0097')) });
    expect(stored.value.l1GasKept ?? null).toBeNull();
    // The failure is logged against the first provider, which the network's pool does not strike for it.
    expect(logged(logs, 'l1 gas units read failed')).toEqual([
      { network: 'arbitrum', provider: 'arbitrum-main', kind: 'rpc-error' },
    ]);
    expect(logged(logs, 'l1 gas units unavailable')).toEqual([]);
    expect(logged(logs, 'rpc attempt failed')).not.toContainEqual(
      expect.objectContaining({ pool: 'arbitrum' }),
    );

    // A fresh answer is a good one: neither the answer nor Arbitrum's entry is degraded, so 16 s on
    // (past the 15-s cadence) the entry still serves, even to an answer assembled anew.
    const reads = () =>
      up.l2.arbitrum.reduce((sum, sim) => sum + (sim.requests.byMethod.eth_gasPrice ?? 0), 0);
    const before = reads();
    clock += 16_000;
    expect(item(await get(), 'arbitrum').estimatedL1GasUnits).toBe(9_000);
    deps.cache.delete(L2_GAS_CACHE_KEY);
    expect(item(await get(), 'arbitrum').estimatedL1GasUnits).toBe(9_000);
    expect(reads()).toBe(before);
  });

  it('asks the other providers for the L1 component again only if the network pool would ask them now', async () => {
    setKnownState();
    const [primary, backup] = up.l2.arbitrum;
    // The first provider is rate-limited for a minute; the second serves the gas price, but its
    // NodeInterface call fails: the retry must not go back to the first inside its Retry-After.
    await primary!.fault('http-429', { retryAfter: 60 });
    await backup!.fault('rpc-error', { ...NODE_INTERFACE_CALL, code: -32000, message: 'execution reverted' });
    const { get } = instance();
    const arbitrum = item(await get(), 'arbitrum');
    expect(arbitrum.gasPriceGwei).toBe(gwei(HEALTHY.arbitrum));
    expect(arbitrum.estimatedL1GasUnits).toBeNull();
    // Its only NodeInterface call is the first attempt's own (answered 429 beside the gas-price batch).
    const contractCalls = primary!.requests.log.filter((r) => !r.keys.includes('eth_gasPrice'));
    expect(contractCalls.map((r) => r.keys)).toEqual([['eth_call']]);
  });

  it("keeps the NodeInterface's last good L1 component for 5 minutes when only its call fails, reading it again every 15 s", async () => {
    setKnownState(HEALTHY);
    for (const sim of up.l2.arbitrum) {
      sim.setBaseFees([parseGwei('0.0097')]);
      sim.setL1GasEstimate(9_000n);
    }
    const { deps, get } = instance();
    const readAt = clock;
    expect(item(await get(), 'arbitrum').estimatedL1GasUnits).toBe(9_000);
    await Promise.all(up.l2.arbitrum.map((sim) => sim.fault('rpc-error', NODE_INTERFACE_CALL)));
    const gasPriceReads = () =>
      up.l2.arbitrum.reduce((sum, sim) => sum + (sim.requests.byMethod.eth_gasPrice ?? 0), 0);

    // A minute on, the gas price is read live and the units are the last good ones, with their time.
    clock += 61_000;
    const kept = await get();
    const arbitrum = item(kept, 'arbitrum');
    expect(arbitrum.gasPriceGwei).toBe(gwei(HEALTHY.arbitrum));
    expect(arbitrum.feeNote).not.toContain('last good reading');
    expect(arbitrum.estimatedL1GasUnits).toBe(9_000);
    // Asked of the other provider as well, which failed too: only then does the last good one stand.
    const [failed] = logged(deps.logs, 'l1 gas units read failed');
    const other = failed?.provider === 'arbitrum-main' ? 'arbitrum-backup' : 'arbitrum-main';
    expect(logged(deps.logs, 'l1 gas units unavailable')).toEqual([
      {
        network: 'arbitrum',
        failures: [expect.objectContaining({ provider: other, kind: 'rpc-error' })],
      },
    ]);
    expect(arbitrum.feeNote).toContain(
      `estimatedL1GasUnits is the NodeInterface's last good answer (gasEstimateL1Component), taken at ${new Date(readAt).toISOString()} (61 s earlier)`,
    );
    expect(kept.citation).toMatch(
      new RegExp(`updated ${new Date(readAt).toISOString().replace(/\./g, '\\.')}$`),
    );
    // The MCP estimate keeps a known total, priced at the base fee the units were read with, and dates it.
    const estimate = await estimateL2(deps, { network: 'arbitrum', gasLimit: 21_000, blobs: 0 }, 'arbitrum');
    expect(estimate.data.l1GasUnits).toBe(9_000);
    expect(estimate.data.l1DataFee?.wei).toBe(String(9_000n * parseGwei('0.0097')));
    expect(estimate.data.total).not.toBeNull();
    expect(estimate.data.feeCompleteness).toBe('full_estimate');
    expect(estimate.data.updatedAt).toBe(new Date(readAt).toISOString());
    expect(estimate.data.notes.join(' ')).toContain(
      `its last good answer, read at ${new Date(readAt).toISOString()}: it did not answer at the reading of ${new Date(clock).toISOString()}`,
    );
    // The shared entry keeps them apart from the units read with it (null there), as the release
    // before, which ignores the new field, stores such a reading: it never takes them for units read now.
    const stored = (await deps.lastGood.get('l2-gas:v2:arbitrum')) as { value: Record<string, unknown> };
    expect(stored.value).toMatchObject({
      l1GasUnits: null,
      l1GasBaseFeeWei: null,
      l1GasKept: { units: '9000', baseFeeWei: String(parseGwei('0.0097')), readAt },
    });

    // Degraded, as a kept OP Stack L1 fee is: the answer and Arbitrum's entry are read again after 15 s.
    const reads = gasPriceReads();
    clock += 16_000;
    expect(item(await get(), 'arbitrum').estimatedL1GasUnits).toBe(9_000);
    expect(gasPriceReads()).toBeGreaterThan(reads);

    // Kept until 5 minutes after they were read, then null, though the answer assembled just before
    // is not due yet (degraded, 15 s) and Arbitrum's entry is fresh.
    clock = readAt + 299_000;
    expect(item(await get(), 'arbitrum').estimatedL1GasUnits).toBe(9_000);
    clock = readAt + 300_001;
    const expired = item(await get(), 'arbitrum');
    expect(expired.gasPriceGwei).toBe(gwei(HEALTHY.arbitrum));
    expect(expired.estimatedL1GasUnits).toBeNull();
    expect(expired.feeNote).not.toContain('last good');
    const unknown = await estimateL2(deps, { network: 'arbitrum', gasLimit: 21_000, blobs: 0 }, 'arbitrum');
    expect(unknown.data.total).toBeNull();
  });

  it.each(CASES)(
    'serves the gas price with estimatedL1GasUnits null when the call $what',
    async ({ arrange, kind }) => {
      // Both providers alike, so whichever answers first, the read is the same.
      setKnownState(HEALTHY);
      await arrange();
      // A short budget where the call hangs: it is asked of the other provider too, which hangs as well.
      const { get, logs } = instance(kind === 'timeout' ? 1000 : 10_000);
      const body = await get();
      const arbitrum = item(body, 'arbitrum');
      expectLiveAt(body, 'arbitrum', HEALTHY.arbitrum);
      expect(arbitrum.estimatedL1GasUnits).toBeNull();
      // Fee suggestions come from the same read and stay.
      expect(arbitrum.baseFee).toBeGreaterThan(0);
      expect(arbitrum.maxPriorityFeePerGas).toBe(0);
      // The gas price's provider is not held responsible for the contract call.
      expect(logged(logs, 'rpc attempt failed')).not.toContainEqual(
        expect.objectContaining({ pool: 'arbitrum' }),
      );
      const failures = logged(logs, 'l1 gas units read failed');
      expect(failures).toHaveLength(1);
      expect(failures[0]).toEqual({
        network: 'arbitrum',
        provider: expect.stringMatching(/^arbitrum-(main|backup)$/),
        kind,
      });
      for (const other of ['optimism', 'base', 'polygon'] as const) {
        expectLiveAt(body, other, HEALTHY[other]);
        expect(item(body, other).estimatedL1GasUnits).toBeNull();
      }
    },
  );
});

// README "Layer 2 gas": a contract read asked again of another provider is held to the freshness
// checks the gas price's provider passed, and asked at the block that was checked.
describe('GET /api/l2-gas when a failed contract read is asked again of a provider whose head is old', () => {
  const CONTRACT_CALLS = { methods: ['eth_call'] };
  const REVERTED = { ...CONTRACT_CALLS, code: -32000, message: 'execution reverted' };
  const iso = (ms: number) => new Date(ms).toISOString();

  /** Contract calls the second provider was asked, and whether the network's pool asked it too (a hedge). */
  function backupAsked(name: L2Name) {
    const backup = up.l2[name][1]!;
    const calls = backup.requests.byMethod.eth_call ?? 0;
    const gasPrices = backup.requests.byMethod.eth_gasPrice ?? 0;
    return {
      newCalls: () => (backup.requests.byMethod.eth_call ?? 0) - calls,
      hedged: () => (backup.requests.byMethod.eth_gasPrice ?? 0) > gasPrices,
    };
  }

  it('arbitrum: a second provider whose head is 10 minutes old gives no L1 component; the last good one stands', async () => {
    setKnownState();
    const [primary, backup] = up.l2.arbitrum;
    for (const sim of up.l2.arbitrum) {
      sim.setBaseFees([parseGwei('0.0097')]);
      sim.setL1GasEstimate(9_000n);
    }
    const { deps, get, logs } = instance();
    const readAt = clock;
    expect(item(await get(), 'arbitrum').estimatedL1GasUnits).toBe(9_000);

    // The first provider's NodeInterface call now fails; the second's head is 10 minutes old, and its
    // units and base fee distinct, so units it gave would show.
    await primary!.fault('rpc-error', REVERTED);
    await backup!.fault('stale');
    backup!.setBaseFees([parseGwei('0.0111')]);
    backup!.setL1GasEstimate(7_000n);
    const asked = backupAsked('arbitrum');
    clock += 61_000;
    const arbitrum = item(await get(), 'arbitrum');
    expect(arbitrum.gasPriceGwei).toBe(gwei(PRIMARY.arbitrum));
    // Its answer is a failure: the last good units stand, with their time, as when every provider fails.
    expect(arbitrum.estimatedL1GasUnits).toBe(9_000);
    expect(arbitrum.feeNote).toContain(
      `estimatedL1GasUnits is the NodeInterface's last good answer (gasEstimateL1Component), taken at ${iso(readAt)} (61 s earlier)`,
    );
    const estimate = await estimateL2(deps, { network: 'arbitrum', gasLimit: 21_000, blobs: 0 }, 'arbitrum');
    expect(estimate.data.l1DataFee?.wei).toBe(String(9_000n * parseGwei('0.0097')));
    expect(logged(logs, 'l1 gas units unavailable')).toEqual([
      {
        network: 'arbitrum',
        failures: [expect.objectContaining({ provider: 'arbitrum-backup', kind: 'stale' })],
      },
    ]);
    // Refused on its head, before its NodeInterface was asked (unless the network's pool asked it too).
    if (!asked.hedged()) expect(asked.newCalls()).toBe(0);
  });

  it('optimism: a second provider whose head is 10 minutes old gives neither oracle fee; the last good ones stand', async () => {
    setKnownState();
    const [primary, backup] = up.l2.optimism;
    for (const sim of up.l2.optimism) sim.setOperatorFee(KNOWN_OP_OPERATOR_FEE.optimism);
    const { get, logs } = instance();
    const readAt = clock;
    const good = item(await get(), 'optimism');
    expect(good.estimatedL1DataFeeUsd).toBeGreaterThan(0);
    expect(good.estimatedOperatorFeeUsd).toBeGreaterThan(0);

    // Both oracle calls (getL1Fee, getOperatorFee) now fail on the first provider; the second's head is
    // 10 minutes old and its fees distinct.
    await primary!.fault('rpc-error', REVERTED);
    await backup!.fault('stale');
    backup!.setL1Fee(KNOWN_OP_L1_FEE_WEI.optimism * 3n);
    backup!.setOperatorFee({ fork: 'jovian', scalar: 7, constant: 1n });
    clock += 61_000;
    const optimism = item(await get(), 'optimism');
    expect(optimism.gasPriceGwei).toBe(gwei(PRIMARY.optimism));
    expect(optimism.estimatedL1DataFeeUsd).toBe(good.estimatedL1DataFeeUsd);
    expect(optimism.estimatedOperatorFeeUsd).toBe(good.estimatedOperatorFeeUsd);
    expect(optimism.feeCompleteness).toBe('full_estimate');
    expect(optimism.feeNote).toContain(
      `The L1 data fee is the GasPriceOracle's last good answer, taken at ${iso(readAt)} (61 s earlier)`,
    );
    expect(optimism.feeNote).toContain(`It is the oracle's last good answer, taken at ${iso(readAt)}`);
    for (const part of ['l1 fee', 'operator fee']) {
      expect(logged(logs, `${part} unavailable`)).toEqual([
        {
          network: 'optimism',
          failures: [expect.objectContaining({ provider: 'optimism-backup', kind: 'stale' })],
        },
      ]);
    }
  });

  it('base: a second provider 45 s behind the best head (under the 60-s age limit) is refused as lag, as the network pool refuses it', async () => {
    setKnownState();
    const [primary, backup] = up.l2.base;
    await primary!.fault('rpc-error', REVERTED);
    await backup!.fault('lag', { blocks: Math.ceil(45_000 / BLOCK_MS.base) });
    backup!.setL1Fee(KNOWN_OP_L1_FEE_WEI.base * 3n);
    const { get, logs } = instance();
    const base = item(await get(), 'base');
    expect(base.gasPriceGwei).toBe(gwei(PRIMARY.base));
    // No last good fee yet: the L1 fee is unknown, not the lagging provider's.
    expect(base.estimatedL1DataFeeUsd).toBeNull();
    expect(base.feeCompleteness).toBe('execution_only');
    expect(logged(logs, 'l1 fee unavailable')).toEqual([
      { network: 'base', failures: [expect.objectContaining({ provider: 'base-backup', kind: 'lag' })] },
    ]);
  });

  it('arbitrum: a node a second behind the checked head (behind the same URL) still answers the call, asked 4 s below it', async () => {
    setKnownState();
    const [primary, backup] = up.l2.arbitrum;
    await primary!.fault('rpc-error', REVERTED);
    // A load balancer sends the second provider's contract calls to a node 4 blocks (1 s) behind.
    await backup!.fault('lag', { ...CONTRACT_CALLS, blocks: 4 });
    backup!.setL1GasEstimate(7_000n);
    const { get, logs } = instance();
    expect(item(await get(), 'arbitrum').estimatedL1GasUnits).toBe(7_000);
    expect(logged(logs, 'l1 gas units unavailable')).toEqual([]);
  });

  it('arbitrum: the call is asked just below the head that was checked, so a node minutes behind it (behind the same URL) cannot answer it', async () => {
    setKnownState();
    const [primary, backup] = up.l2.arbitrum;
    await primary!.fault('rpc-error', REVERTED);
    // The second provider's head is fresh, but its contract calls reach a node 2 minutes behind.
    await backup!.fault('lag', { ...CONTRACT_CALLS, blocks: 480 });
    backup!.setL1GasEstimate(7_000n);
    const { get, logs } = instance();
    const arbitrum = item(await get(), 'arbitrum');
    expect(arbitrum.gasPriceGwei).toBe(gwei(PRIMARY.arbitrum));
    expect(arbitrum.estimatedL1GasUnits).toBeNull();
    // The node answers that it has no such block yet.
    expect(logged(logs, 'l1 gas units unavailable')).toEqual([
      {
        network: 'arbitrum',
        failures: [expect.objectContaining({ provider: 'arbitrum-backup', kind: 'rpc-error', code: -32000 })],
      },
    ]);
  });

  it('arbitrum: a second provider whose head is fresh gives the L1 component, read at that head', async () => {
    setKnownState();
    const [primary, backup] = up.l2.arbitrum;
    await primary!.fault('rpc-error', REVERTED);
    backup!.setBaseFees([parseGwei('0.0097')]);
    backup!.setL1GasEstimate(7_000n);
    const { get, logs } = instance();
    expect(item(await get(), 'arbitrum').estimatedL1GasUnits).toBe(7_000);
    expect(logged(logs, 'l1 gas units unavailable')).toEqual([]);
  });
});

describe('GET /api/l2-gas when every provider of one network fails', () => {
  it.each(L2_NAMES)(
    '%s: served from its last good reading, then with null numbers; the other three stay live',
    async (name) => {
      setKnownState(HEALTHY);
      const { get, logs } = instance();
      const first = await get();
      for (const id of L2_NAMES) expectLiveAt(first, id, HEALTHY[id]);
      const good = item(first, name);

      // The others move to new prices (so a live read shows), this network's providers fail two ways.
      for (const other of L2_NAMES) {
        if (other !== name) for (const sim of up.l2[other]) sim.setGasPrice(PRIMARY[other]);
      }
      await up.l2[name][0]?.fault('http-429');
      await up.l2[name][1]?.fault('rpc-error', { code: -32603, message: 'internal error' });

      clock += 61_000;
      const stale = await get();
      const served = item(stale, name);
      expect(served.gasPriceGwei).toBe(good.gasPriceGwei);
      expect(served.executionGasCostUsd).toBe(good.executionGasCostUsd);
      expect(served.estimatedWalletFeeUsd).toBe(good.estimatedWalletFeeUsd);
      expect(served.feeNote).toMatch(/last good reading, taken at .* \(61 s earlier\)/);
      for (const other of L2_NAMES) if (other !== name) expectLiveAt(stale, other, PRIMARY[other]);
      const [main, backup] = labelsOf(name);
      const attempts = logged(logs, 'rpc attempt failed');
      expect(attempts).toContainEqual(
        expect.objectContaining({ pool: name, provider: main, kind: 'rate-limited', code: 429 }),
      );
      expect(attempts).toContainEqual(
        expect.objectContaining({ pool: name, provider: backup, kind: 'rpc-error', code: -32603 }),
      );
      expect(logged(logs, 'l2 network unavailable live')).toContainEqual(
        expect.objectContaining({ network: name }),
      );

      // Past 5 minutes the last good reading is too old: null numbers, said so in the note.
      clock += 4 * 60_000;
      const gone = await get();
      expect(item(gone, name)).toMatchObject({
        gasPriceGwei: null,
        executionGasCostUsd: null,
        estimatedL1DataFeeUsd: null,
        estimatedWalletFeeUsd: null,
        estimatedL1GasUnits: null,
      });
      expect(item(gone, name).feeNote).toMatch(/^Reading unavailable: no .* provider answered/);
      for (const other of L2_NAMES) if (other !== name) expectLiveAt(gone, other, PRIMARY[other]);
    },
  );
});
