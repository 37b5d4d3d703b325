import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { formatEther, formatGwei, parseGwei } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createApp } from '../../functions/app';
import type { AppDeps } from '../../lib/deps';
import { outputSchemaOf } from '../../lib/mcp/tool';
import { l2GasTool } from '../../lib/mcp/tools/l2-gas';
import { transactionCostTool } from '../../lib/mcp/tools/transaction-cost';
import { computeTransactionCost } from '../../lib/mcp/transaction-cost';
import { GasResponseSchema } from '../../lib/schemas/current-gas';
import { L2_GAS_CACHE_KEY } from '../../lib/services/l2-gas';
import { requireFreshReading } from '../../lib/store/shared-read';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { expectNoLeaks, startUpstreams, type Upstreams } from '../upstreams';
import { HEALTHY_VIEW, headWithBlobs } from '../upstreams/chain-model';
import {
  KNOWN_L2_GAS_WEI,
  KNOWN_OP_OPERATOR_FEE,
  setKnownState as setKnownStateOf,
} from '../upstreams/known-state';

const ETH_USD = 2000;
const POL_USD = 0.25;
const GAS_WEI = KNOWN_L2_GAS_WEI;
const L1_FEE_WEI = { optimism: 5_000_000_000_000n, base: 9_876_543_210n };

let up: Upstreams;
const clients: Client[] = [];

beforeAll(async () => {
  up = await startUpstreams();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await up.reset();
});
afterAll(async () => {
  await up?.close();
});

/** Known prices on every price source (a first CoinGecko read can miss the short budget on a loaded machine), gas and L1 fees. */
function setKnownState() {
  setKnownStateOf(up, { usd: { ETH: ETH_USD, POL: POL_USD }, l1FeeWei: L1_FEE_WEI });
}

/** A fresh app (own caches and last-good store) and an SDK client that calls it in-process. */
async function connect(overrides: Partial<AppDeps> = {}) {
  const deps = createTestDeps(
    { ...up.env, UPSTREAM_TIMEOUT_MS: '2000', PUBLIC_BASE_URL: 'https://gas.test' },
    overrides,
  );
  const app = createApp(deps);
  const client = new Client({ name: 'tool-results-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('https://gas.test/api/mcp'), {
      fetch: async (input, init) => app.fetch(new Request(input, init)),
    }),
  );
  clients.push(client);
  // Listing caches the output schemas, so every callTool below is validated by the client as well.
  await client.listTools();
  return { app, deps, client };
}

/** Calls a tool and returns whether it failed and its text. */
async function callRaw(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
  return { isError: result.isError === true, text, structured: result.structuredContent };
}

/** Calls a tool that must succeed and returns its result parsed with the tool's own output schema. */
async function callOk<O extends z.ZodRawShape>(
  client: Client,
  tool: { name: string; output: O },
  args: Record<string, unknown> = {},
) {
  const { isError, text, structured } = await callRaw(client, tool.name, args);
  expect(isError, text).toBe(false);
  const data = outputSchemaOf(tool).parse(structured) as z.output<ReturnType<typeof outputSchemaOf<O>>> & {
    citation: string;
  };
  expect(text).toContain(data.citation);
  expect(data.citation).toMatch(
    /^Data from Gas Fee API \(https:\/\/gas\.test\), .* updated \d{4}-\d\d-\d\dT/,
  );
  return { data, text };
}

const estimate = (client: Client, args: Record<string, unknown> = {}) =>
  callOk(client, transactionCostTool, args);

function expectNoSecrets(deps: TestDeps, ...texts: string[]) {
  expectNoLeaks(up, ...texts, ...deps.logs);
}

describe('MCP estimate_transaction_cost', () => {
  it('prices a gas limit on Base exactly, with the L1 data fee of a representative transfer', async () => {
    setKnownState();
    const { client, deps } = await connect();
    const { data, text } = await estimate(client, {
      network: 'base',
      gasLimit: 100_000,
    });
    const executionWei = 100_000n * GAS_WEI.base;
    expect(data).toMatchObject({
      network: 'base',
      nativeToken: 'ETH',
      gasLimit: 100_000,
      tier: null,
      gasPriceGwei: 0.0061,
    });
    expect(data.execution.gwei).toBe(Number(executionWei) / 1e9);
    expect(data.execution.native).toBe(Number(executionWei) / 1e18);
    // The L1 fee is carried in wei from the oracle's answer, so both it and the total are exact.
    expect(data.l1DataFee?.native).toBe(Number(formatEther(L1_FEE_WEI.base)));
    expect(data.l1DataFee?.gwei).toBe(Number(formatGwei(L1_FEE_WEI.base)));
    expect(data.total?.native).toBe(Number(formatEther(executionWei + L1_FEE_WEI.base)));
    expect(data.total?.wei).toBe(String(executionWei + L1_FEE_WEI.base));
    const totalUsd = Number(formatEther(executionWei + L1_FEE_WEI.base)) * ETH_USD;
    expect(Math.abs((data.total?.usd ?? Number.NaN) - totalUsd) / totalUsd).toBeLessThan(5e-4);
    expect(data.feeCompleteness).toBe('full_estimate');
    expect(data.notes.join(' ')).toMatch(/representative serialized EIP-1559 ETH transfer/);
    expect(data.notes.join(' ')).toMatch(/not on gasLimit/);
    expect(text).toContain('100000 gas on Base');
    expectNoSecrets(deps, JSON.stringify(data));
  });

  it.each([
    // Base under Isthmus: 100,000 x 1,234,567 / 1e6 + 1,000,000,007 (integer division).
    ['base', 100_000, 123_456n + 1_000_000_007n],
    // Optimism under Jovian: 250,000 x 3 x 100 + 2,500,000,000.
    ['optimism', 250_000, 75_000_000n + 2_500_000_000n],
    // At 21,000 gas: the oracle's own getOperatorFee(21000) answer.
    ['optimism', 21_000, 6_300_000n + 2_500_000_000n],
  ] as const)(
    'adds the operator fee of %s gas limit %i to an exact total',
    async (network, gasLimit, operatorWei) => {
      setKnownStateOf(up, {
        usd: { ETH: ETH_USD, POL: POL_USD },
        l1FeeWei: L1_FEE_WEI,
        operatorFee: KNOWN_OP_OPERATOR_FEE,
      });
      const { client } = await connect();
      const { data, text } = await estimate(client, { network, gasLimit });
      expect(data.operatorFee?.wei).toBe(String(operatorWei));
      expect(data.operatorFee?.native).toBe(Number(formatEther(operatorWei)));
      const executionWei = BigInt(gasLimit) * parseGwei(data.gasPriceGwei.toFixed(9));
      expect(data.execution.wei).toBe(String(executionWei));
      expect(data.total?.wei).toBe(String(executionWei + L1_FEE_WEI[network] + operatorWei));
      expect(data.feeCompleteness).toBe('full_estimate');
      expect(data.notes.join(' ')).toContain(`operatorFee is the operator fee of ${gasLimit} gas`);
      expect(data.notes.join(' ')).toContain('so it is an upper bound');
      expect(text).toContain('operator fee');
    },
  );

  it('keeps the Base total of execution and L1 fee when its oracle reverts getOperatorFee, and says it excludes it', async () => {
    setKnownState();
    for (const sim of up.l2.base) sim.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    const { client } = await connect();
    const { data, text } = await estimate(client, { network: 'base', gasLimit: 100_000 });
    const executionWei = 100_000n * GAS_WEI.base;
    expect(data.execution.wei).toBe(String(executionWei));
    // The L1 fee was read fine; an operator fee that is unknown (a revert: a fault, not a zero) is left out.
    expect(data.l1DataFee?.wei).toBe(String(L1_FEE_WEI.base));
    expect(data.operatorFee).toBeNull();
    expect(data.total?.wei).toBe(String(executionWei + L1_FEE_WEI.base));
    expect(data.feeCompleteness).toBe('full_estimate');
    expect(data.notes.join(' ')).toContain(
      'The operator fee could not be read from the GasPriceOracle just now, so total excludes it',
    );
    expect(text).toContain('excluding the operator fee (unknown, see notes)');
    expect(text).not.toContain('total unknown');
  });

  it('prices Polygon in POL with no L1 fee, and says a mainnet tier does not apply', async () => {
    setKnownState();
    const { client } = await connect();
    const { data } = await estimate(client, { network: 'polygon', tier: 'high' });
    expect(data).toMatchObject({
      network: 'polygon',
      nativeToken: 'POL',
      gasLimit: 21_000,
      gasPriceGwei: 31.25,
      nativeUsd: POL_USD,
    });
    expect(data.execution).toEqual({
      wei: '656250000000000',
      gwei: 656_250,
      native: 0.00065625,
      usd: 0.0001641,
    });
    expect(data.l1DataFee).toBeNull();
    expect(data.total).toEqual(data.execution);
    expect(data.notes.join(' ')).toContain('tier "high" applies to mainnet only');
  });

  it("adds Arbitrum's L1 component (NodeInterface gas units at the base fee it returned) to a complete total", async () => {
    setKnownState();
    // The NodeInterface answers the chain's base fee, 0.0097 gwei, beside units it divided the padded
    // L1 cost by it; the provider's eth_gasPrice is 0.0103 gwei, which prices execution only.
    for (const sim of up.l2.arbitrum) {
      sim.setBaseFees([parseGwei('0.0097')]);
      sim.setL1GasEstimate(9_000n);
    }
    const { client } = await connect();
    const { data, text } = await estimate(client, { network: 'arbitrum', gasLimit: 500_000 });
    expect(data.execution.gwei).toBe(5_150); // 500,000 x 0.0103 gwei
    expect(data.l1GasUnits).toBe(9_000);
    expect(data.l1DataFee?.wei).toBe(String(9_000n * parseGwei('0.0097'))); // 87.3 gwei, not 9,000 x 0.0103
    expect(data.l1DataFee?.gwei).toBe(87.3);
    expect(data.total?.wei).toBe(String(500_000n * parseGwei('0.0103') + 9_000n * parseGwei('0.0097')));
    expect(data.feeCompleteness).toBe('full_estimate');
    expect(data.notes.join(' ')).toContain('at the L2 base fee it returned with them');
    // The L1 units come on top of gasLimit: an eth_estimateGas answer (which holds them) must not be passed as is.
    expect(data.notes.join(' ')).toContain('its answer given as gasLimit counts them twice');
    expect(data).toMatchObject({ maxPriorityFeePerGas: 0, expectedWaitSeconds: null, blobs: 0 });
    expect(text).toContain('L1 data fee');
  });

  it('leaves the Arbitrum total unknown when the NodeInterface cannot be read (SPEC extension 17)', async () => {
    setKnownState();
    for (const sim of up.l2.arbitrum) await sim.fault('rpc-error', { methods: ['eth_call'] });
    const { client } = await connect();
    const { data, text } = await estimate(client, { network: 'arbitrum', gasLimit: 500_000 });
    expect(data.execution.gwei).toBe(5_150);
    expect(data.l1GasUnits).toBeNull();
    // Execution alone would understate the total, as an unread OP Stack L1 fee would.
    expect(data.total).toBeNull();
    expect(data.feeCompleteness).toBe('execution_only');
    expect(text).toContain('total unknown');
  });

  it('prices mainnet at the asked tier of the same reading GET /api/gas serves', async () => {
    setKnownState();
    const { client, app } = await connect();
    const gas = GasResponseSchema.parse(await (await app.request('/api/gas')).json());
    for (const tier of ['low', 'average', 'high'] as const) {
      const { data } = await estimate(client, { tier, gasLimit: 65_000 });
      const expected = computeTransactionCost({
        gasLimit: 65_000,
        gasPriceWei: parseGwei(String(gas[tier])),
        nativeUsd: ETH_USD,
        l1DataFee: 'none',
      });
      expect(data).toMatchObject({
        network: 'mainnet',
        tier,
        gasPriceGwei: gas[tier],
        nativeUsd: ETH_USD,
        ...expected,
      });
      expect(data.execution.gwei).toBeCloseTo(65_000 * gas[tier], 6);
    }
    const { data } = await estimate(client);
    expect(data).toMatchObject({ gasLimit: 21_000, tier: 'average', network: 'mainnet' });
  });

  it("returns the tier's ready-to-send fee pair and expected wait, as GET /api/gas serves them", async () => {
    setKnownState();
    const { client, app } = await connect();
    const gas = GasResponseSchema.parse(await (await app.request('/api/gas')).json());
    for (const tier of ['low', 'average', 'high'] as const) {
      const { data, text } = await estimate(client, { tier });
      expect(data).toMatchObject({
        maxPriorityFeePerGas: gas.tiers[tier].maxPriorityFeePerGas,
        maxFeePerGas: gas.tiers[tier].maxFeePerGas,
        expectedWaitSeconds: gas.tiers[tier].estimatedWaitSeconds,
        blobs: 0,
        blobFee: null,
      });
      expect(text).toContain(`maxFeePerGas ${gas.tiers[tier].maxFeePerGas}`);
    }
  });

  it('adds the blob gas of a blob transaction at the next block blob base fee', async () => {
    setKnownState();
    for (const sim of up.mainnet) sim.setHead({ number: headWithBlobs(up) });
    const { client, app } = await connect();
    const gas = GasResponseSchema.parse(await (await app.request('/api/gas')).json());
    const blobFeeWei = 3n * 131_072n * parseGwei(gas.nextBlobBaseFee!.toFixed(9));
    const { data } = await estimate(client, { blobs: 3 });
    const expected = computeTransactionCost({
      gasLimit: 21_000,
      gasPriceWei: parseGwei(String(gas.average)),
      nativeUsd: ETH_USD,
      l1DataFee: 'none',
      blobFee: { wei: blobFeeWei },
    });
    expect(data).toMatchObject({ blobs: 3, blobGasPriceGwei: gas.nextBlobBaseFee, ...expected });
    expect(data.total?.gwei).toBeCloseTo(data.execution.gwei + data.blobFee!.gwei, 9);
  });

  it('says when to ask again for blobs while the per-block blob maximum is unknown: at the next mainnet reading', async () => {
    setKnownState();
    // A head whose newest block carried no blob, read by a fresh process: no maximum to check against.
    const model = up.mainnet[0]!.model;
    let blobless = headWithBlobs(up);
    while (model.fees(blobless, HEALTHY_VIEW).blobGasUsed > 0n) blobless += 1;
    for (const sim of up.mainnet) sim.setHead({ number: blobless });
    let clock = Date.now();
    const { client, deps } = await connect({ now: () => clock });
    const unknown =
      /^estimate_transaction_cost failed: blobs: the per-block blob maximum is not known just now .*Until then, call with blobs 0 to price the transaction without blobs\. Retry after (\d+) seconds\.$/;
    // The reading was taken now: the next one comes at the end of its 30-s cadence, and 12 s later,
    // 12 s fewer (until 2026-11-28 "retry shortly", no time).
    const first = await callRaw(client, 'estimate_transaction_cost', { blobs: 2 });
    expect(first.isError).toBe(true);
    expect(first.text).toMatch(unknown);
    expect(first.text).toMatch(/ Retry after 30 seconds\.$/);
    clock += 12_000;
    expect((await callRaw(client, 'estimate_transaction_cost', { blobs: 2 })).text).toMatch(
      / Retry after 18 seconds\.$/,
    );
    // Without blobs the same reading prices the transaction.
    expect((await estimate(client, { blobs: 0 })).data.blobs).toBe(0);
    // Once the refresh has failed, the next reading is its retry: 5 s, and up to a second until this
    // instance looks again.
    for (const sim of up.mainnet) await sim.fault('refuse');
    await up.etherscan.fault('http-500');
    clock += 20_000;
    const afterFailure = await callRaw(client, 'estimate_transaction_cost', { blobs: 2 });
    expect(afterFailure.text).toMatch(unknown);
    expect([5, 6]).toContain(Number(afterFailure.text.match(unknown)?.[1]));
    expectNoSecrets(deps, first.text, afterFailure.text);
  });

  it('says blobs cannot be priced while the block explorer backstop serves mainnet gas, until an RPC provider answers again', async () => {
    setKnownState();
    // Every RPC provider refuses: a fresh process reads mainnet gas from the explorer, which gives no
    // blob data (no blob fee, no per-block maximum).
    for (const sim of up.mainnet) await sim.fault('refuse');
    let clock = Date.now();
    const { client, deps } = await connect({ now: () => clock });
    const explorer =
      /^estimate_transaction_cost failed: blobs: mainnet gas comes from the block explorer backstop just now, which gives no blob data, .*once an RPC provider answers again.*Until then, call with blobs 0 to price the transaction without blobs\. Retry after (\d+) seconds\.$/;
    const retryOf = (text: string) => Number(text.match(explorer)?.[1]);
    // Until later on 2026-11-28 it said the next mainnet reading would derive the maximum again, which
    // another reading of the explorer's does not. The time is still the next refresh's: the end of the
    // reading's 30-s cadence.
    const live = await callRaw(client, 'estimate_transaction_cost', { blobs: 2 });
    expect(live.isError).toBe(true);
    expect(live.text).toMatch(explorer);
    expect(retryOf(live.text)).toBe(30);
    expect(live.text).not.toMatch(/derives it again/);
    // Without blobs the explorer's reading prices the transaction.
    const { data, text } = await estimate(client, { blobs: 0 });
    expect(data.blobs).toBe(0);
    expect(data.notes[0]).toMatch(/, read from etherscan\.$/);
    // The explorer fails too: its reading is served as the last good one (`stale:etherscan`), and the
    // next refresh is the back-off's retry, 5 s (and up to a second until this instance looks again).
    await up.etherscan.fault('http-500');
    clock += 31_000;
    const stale = await callRaw(client, 'estimate_transaction_cost', { blobs: 2 });
    expect(stale.text).toMatch(explorer);
    expect([5, 6]).toContain(retryOf(stale.text));
    expectNoSecrets(deps, live.text, text, stale.text);
  });

  it('keeps every wei of a tiny L2 price times a large limit', () => {
    const cost = computeTransactionCost({
      gasLimit: 29_999_999,
      gasPriceWei: 1237n,
      nativeUsd: null,
      l1DataFee: 'none',
    });
    expect(cost.execution.gwei).toBe(37.109998763);
    expect(cost.execution.usd).toBeNull();
  });

  it('gives every wei of a large total as a decimal string, where a JSON number keeps about 15 digits', () => {
    // A 16.7 M-gas transaction at 81.76 gwei with blobs: 1,371,669,265.508728832 gwei, about 1.37 ETH.
    const cost = computeTransactionCost({
      gasLimit: 16_777_216,
      gasPriceWei: 81_757_662_251n,
      nativeUsd: null,
      l1DataFee: 'none',
      blobFee: { wei: 3_306_268_655_616n },
    });
    const exact = 16_777_216n * 81_757_662_251n + 3_306_268_655_616n;
    expect(cost.total?.wei).toBe(exact.toString());
    expect(BigInt(cost.total?.wei ?? '0')).toBe(exact);
    // The number form is as near as a double gets, not exact.
    expect(cost.total?.gwei).toBe(Number(formatGwei(exact)));
  });
});

describe('MCP tool results for clients of older protocol versions', () => {
  /** Calls get_eth_price raw, with the given protocol version header (none when undefined). */
  async function ethPriceRaw(version: string | undefined) {
    setKnownState();
    const { app } = await connect();
    const res = await app.request('/api/mcp', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(version ? { 'MCP-Protocol-Version': version } : {}),
      },
      body: '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_eth_price"}}',
    });
    const { result } = (await res.json()) as {
      result: { content: { type: string; text: string }[]; structuredContent: unknown };
    };
    return result;
  }

  it.each([['2024-11-05'], ['2025-03-26'], [undefined]])(
    'adds the structured result as JSON text for protocol version %s, which has no structuredContent',
    async (version) => {
      const result = await ethPriceRaw(version);
      expect(result.content).toHaveLength(2);
      expect(JSON.parse(result.content[1]!.text)).toEqual(result.structuredContent);
    },
  );

  it.each([['2025-06-18'], ['2025-11-25']])(
    'keeps the summary alone for protocol version %s',
    async (version) => {
      const result = await ethPriceRaw(version);
      expect(result.content).toHaveLength(1);
      expect(result.content[0]!.text).toContain('updated');
    },
  );
});

describe('MCP tools when upstreams fail', () => {
  it('gives isError results with the reason when no mainnet upstream answers, and when to ask again', async () => {
    for (const sim of up.mainnet) await sim.fault('refuse');
    await up.etherscan.fault('http-500');
    // A clock that stands still: every call is told the whole back-off, whatever the machine's speed.
    const now = Date.now();
    const { client, deps } = await connect({ now: () => now });
    for (const [name, args] of [
      ['get_current_gas', {}],
      ['best_time_to_transact', {}],
      ['get_gas_forecast', { timeframe: '6h' }],
      ['estimate_transaction_cost', {}],
    ] as const) {
      const result = await callRaw(client, name, args);
      expect(result.isError, name).toBe(true);
      expect(result.text).toContain(`${name} failed: Gas data unavailable`);
      // The first failed refresh is tried again in 5 s, and this instance looks again up to a second
      // after that (until 2026-11-28: "Retry after 30 seconds").
      expect(result.text).toMatch(/Retry after [56] seconds\.$/);
      expectNoSecrets(deps, result.text);
    }
  });

  it('says when to ask again when an L2 network has no reading, for get_l2_gas and an L2 estimate', async () => {
    setKnownState();
    for (const sim of up.l2.base) await sim.fault('http-500');
    let clock = Date.now();
    const { client, deps } = await connect({ now: () => clock });
    const cost = await callRaw(client, 'estimate_transaction_cost', { network: 'base' });
    expect(cost.isError).toBe(true);
    expect(cost.text).toContain('Base gas price unavailable');
    // The network's first failed refresh is tried again in 5 s, and this instance looks again up to a
    // second after that (until 2026-11-28 "retry shortly", no time); 3 s later, 3 s fewer.
    const wait = Number(cost.text.match(/ Retry after (\d+) seconds\.$/)?.[1]);
    expect([5, 6]).toContain(wait);
    clock += 3_000;
    const l2 = await callRaw(client, 'get_l2_gas', { network: 'base' });
    expect(l2.isError).toBe(true);
    expect(l2.text).toContain('Base: Reading unavailable');
    expect(l2.text).toMatch(new RegExp(`\\. Retry after ${wait - 3} seconds\\.$`));
    // The networks that answered are served as before, with no hint.
    const { data } = await callOk(client, l2GasTool, { network: 'polygon' });
    expect(data.networks[0]?.gasPriceGwei).toBe(31.25);
    expectNoSecrets(deps, cost.text, l2.text);
  });

  it('gives an isError result when no price source answers, while a mainnet estimate says USD is unknown', async () => {
    for (const sim of [up.coingecko, up.coinbase, up.kraken]) await sim.fault('http-500');
    let clock = Date.now();
    const { client, deps } = await connect({ now: () => clock });
    const price = await callRaw(client, 'get_eth_price');
    expect(price.isError).toBe(true);
    expect(price.text).toContain('ETH/USD price unavailable');
    // When the failed refresh is tried again: 5 s, and up to a second until this instance looks again
    // (until 2026-11-28 "retry in about 30 seconds"); 3 s later, 3 s fewer.
    const wait = Number(price.text.match(/retry after (\d+) seconds\.$/)?.[1]);
    expect([5, 6]).toContain(wait);
    clock += 3_000;
    expect((await callRaw(client, 'get_eth_price')).text).toMatch(
      new RegExp(`retry after ${wait - 3} seconds\\.$`),
    );
    const { data } = await estimate(client, { gasLimit: 30_000 });
    expect(data.nativeUsd).toBeNull();
    expect(data.execution.usd).toBeNull();
    expect(data.execution.gwei).toBeGreaterThan(0);
    expect(data.notes.join(' ')).toContain('USD figures unavailable');
    expectNoSecrets(deps, price.text, JSON.stringify(data));
  });

  it('gives an isError result for an L2 network whose providers all hang, and still serves the others', async () => {
    setKnownState();
    for (const sim of up.l2.base) await sim.fault('hang');
    const { client, deps } = await connect();
    const base = await callRaw(client, 'get_l2_gas', { network: 'base' });
    expect(base.isError).toBe(true);
    expect(base.text).toContain('Base: Reading unavailable');
    const baseCost = await callRaw(client, 'estimate_transaction_cost', { network: 'base' });
    expect(baseCost.isError).toBe(true);
    expect(baseCost.text).toContain('Base gas price unavailable');
    const { data: all } = await callOk(client, l2GasTool);
    expect(all.networks.map((n) => n.id)).toEqual(['arbitrum', 'optimism', 'base', 'polygon']);
    expect(all.networks.find((n) => n.id === 'base')?.gasPriceGwei).toBeNull();
    const { data: polygon } = await callOk(client, l2GasTool, { network: 'polygon' });
    expect(polygon.networks).toHaveLength(1);
    expect(polygon.networks[0]?.gasPriceGwei).toBe(31.25);
    expectNoSecrets(deps, base.text, baseCost.text, JSON.stringify(all));
  });

  it("says when Layer 2 gas is a last good reading, not 'now', and that Arbitrum's transfer cost leaves out its L1 part", async () => {
    setKnownState();
    let clock = Date.now();
    const { client } = await connect({ now: () => clock });
    const live = await callOk(client, l2GasTool);
    expect(live.text).toContain('Layer 2 gas now.');
    expect(live.text).toMatch(
      /Arbitrum One: [\d.]+ gwei, transfer about \$[\d.]+ in execution alone \(execution_only/,
    );
    for (const sim of up.l2.base) await sim.fault('http-500');
    clock += 61_000;
    const { text } = await callOk(client, l2GasTool);
    expect(text).not.toContain('Layer 2 gas now.');
    expect(text).toMatch(/Base: [\d.]+ gwei \(last good reading of \d{4}-.*live providers did not answer\)/);
    const { data } = await estimate(client, { network: 'base' });
    expect(data.notes.join(' ')).toContain('read with the last good reading from the GasPriceOracle');
    expect(data.notes.join(' ')).not.toContain('read live from the GasPriceOracle');
  });

  it('names a known operator fee in the Layer 2 summary whether or not the L1 fee was read', async () => {
    setKnownStateOf(up, {
      usd: { ETH: ETH_USD, POL: POL_USD },
      l1FeeWei: { ...L1_FEE_WEI, optimism: 0n },
      operatorFee: KNOWN_OP_OPERATOR_FEE,
    });
    const { client } = await connect();
    const { data, text } = await callOk(client, l2GasTool);
    const served = (id: string) => data.networks.find((n) => n.id === id);
    const optimism = served('optimism');
    const base = served('base');
    expect(optimism?.feeCompleteness).toBe('execution_only');
    expect(optimism?.estimatedOperatorFeeUsd).toBeGreaterThan(0);
    // An L1 fee of 0 is refused (execution_only); the operator fee, read apart, is still known.
    // Until 2026-11-28 the execution_only line left it out.
    expect(text).toContain(
      `OP Mainnet: ${optimism?.gasPriceGwei} gwei, transfer about $${optimism?.executionGasCostUsd} in ` +
        'execution alone (execution_only: its L1 part comes on top) plus an operator fee of about ' +
        `$${optimism?.estimatedOperatorFeeUsd}.`,
    );
    expect(text).toContain(
      `Base: ${base?.gasPriceGwei} gwei, transfer about $${base?.estimatedWalletFeeUsd} (full_estimate) ` +
        `plus an operator fee of about $${base?.estimatedOperatorFeeUsd}.`,
    );
    // Arbitrum has no operator fee.
    expect(text).toMatch(
      /Arbitrum One: [\d.]+ gwei, transfer about \$[\d.]+ in execution alone \(execution_only: its L1 part comes on top\)\./,
    );
  });

  it('says an unread operator fee in an execution_only Layer 2 line, and nothing of an operator fee of 0', async () => {
    setKnownStateOf(up, { usd: { ETH: ETH_USD, POL: POL_USD }, l1FeeWei: { optimism: 0n, base: 0n } });
    // Optimism's oracle lacks getOperatorFee; Base's charges none (0).
    for (const sim of up.l2.optimism) sim.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    const { client } = await connect();
    const { data, text } = await callOk(client, l2GasTool);
    expect(data.networks.find((n) => n.id === 'optimism')?.estimatedOperatorFeeUsd).toBeNull();
    expect(data.networks.find((n) => n.id === 'base')?.estimatedOperatorFeeUsd).toBe(0);
    expect(text).toMatch(
      /OP Mainnet: [\d.]+ gwei, transfer about \$[\d.]+ in execution alone \(execution_only: its L1 part comes on top\) plus an operator fee that could not be read just now\./,
    );
    expect(text).toMatch(
      /Base: [\d.]+ gwei, transfer about \$[\d.]+ in execution alone \(execution_only: its L1 part comes on top\)\./,
    );
  });

  it("says when the Base L1 fee is the oracle's last good answer, not read live", async () => {
    setKnownState();
    const { client, deps } = await connect();
    const first = (await estimate(client, { network: 'base' })).data;
    expect(first.notes.join(' ')).toContain('read live from the GasPriceOracle');
    for (const sim of up.l2.base)
      await sim.fault('rpc-error', { methods: ['eth_call'], code: -32000, message: 'execution reverted' });
    // Read Base again now: its gas price answers, its oracle does not.
    requireFreshReading(deps, 'l2-gas:v2:base');
    deps.cache.delete(L2_GAS_CACHE_KEY);
    const { data } = await estimate(client, { network: 'base' });
    expect(data.feeCompleteness).toBe('full_estimate');
    expect(data.notes.join(' ')).toMatch(/read at \d{4}-\d\d-\d\dT[\d:.]+Z \(its last good answer/);
    expect(data.notes.join(' ')).toContain('(its last good answer: it did not answer at the reading of ');
    expect(data.notes.join(' ')).not.toContain('read live from the GasPriceOracle');
    // The estimate's time is its oldest part's: the kept L1 fee's, from the first reading.
    expect(data.updatedAt).toBe(first.updatedAt);
  });

  it('leaves the Optimism total unknown when the L1 fee cannot be read, rather than understating it', async () => {
    setKnownState();
    for (const sim of up.l2.optimism) await sim.fault('rpc-error', { methods: ['eth_call'] });
    const { client } = await connect();
    const { data, text } = await estimate(client, { network: 'optimism' });
    // Priced at the gas price, or at the suggested pair's base fee + tip when that is higher.
    expect(data.gasPriceGwei).toBeGreaterThanOrEqual(Number(GAS_WEI.optimism) / 1e9);
    expect(data.execution.gwei).toBeCloseTo(21_000 * data.gasPriceGwei, 9);
    expect(data.l1DataFee).toBeNull();
    expect(data.total).toBeNull();
    expect(data.feeCompleteness).toBe('execution_only');
    expect(data.notes.join(' ')).toContain('could not be read from the GasPriceOracle');
    expect(text).toContain('total unknown');
  });

  it('prices Polygon at what its suggested pair pays when the gas price is below the 25 gwei minimum tip', async () => {
    setKnownState();
    for (const sim of up.l2.polygon) {
      sim.setGasPrice(parseGwei('6'));
      sim.setMaxPriorityFee(parseGwei('1'));
    }
    const { client, app } = await connect();
    const { data, text } = await estimate(client, { network: 'polygon' });
    const l2 = (await (await app.request('/api/l2-gas')).json()) as {
      networks: { id: string; baseFee: number; maxPriorityFeePerGas: number; maxFeePerGas: number }[];
    };
    const polygon = l2.networks.find((n) => n.id === 'polygon')!;
    expect(polygon.maxPriorityFeePerGas).toBe(25);
    const priceWei = parseGwei(polygon.baseFee.toFixed(9)) + parseGwei('25');
    expect(data).toMatchObject({ maxPriorityFeePerGas: 25, maxFeePerGas: polygon.maxFeePerGas });
    expect(parseGwei(data.gasPriceGwei.toFixed(9))).toBe(priceWei);
    expect(data.total?.wei).toBe(String(21_000n * priceWei));
    expect(data.feeCompleteness).toBe('full_estimate');
    expect(data.notes[0]).toContain('what a transaction sent with the suggested fee pair pays');
    expect(data.notes[0]).toContain("under the minimum tip Polygon PoS's nodes accept");
    expect(text).toContain(`at ${data.gasPriceGwei} gwei`);
  });

  it('gives an isError result with Retry-After advice when the history store is down', async () => {
    const { client, deps } = await connect({
      withDb: () =>
        Promise.reject(new Error('connect ECONNREFUSED postgres://user:sim-secret-key-db@127.0.0.1:5432/x')),
    });
    const result = await callRaw(client, 'get_gas_history', { range: '6h' });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      'get_gas_history failed: History store unavailable: The history database cannot be reached; retry shortly. Retry after 30 seconds.',
    );
    expect(deps.logs.join('\n')).not.toContain('sim-secret-key-db');
  });
});
