import { formatGwei, parseGwei } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createApp } from '../../functions/app';
import { computeNextBaseFee } from '../../lib/oracle/fee-history';
import { computeMaxFeePerGas, TIER_HEADROOM_BLOCKS } from '../../lib/oracle/max-fee';
import type { GasResponseSchema } from '../../lib/schemas/current-gas';
import { CURRENT_GAS_LAST_GOOD_KEY } from '../../lib/services/current-gas';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { insertMainnetSnapshots } from '../../lib/store/history-writes';
import { requireFreshReading } from '../../lib/store/shared-read';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { startUpstreams, type Upstreams } from '../upstreams';
import { HEALTHY_VIEW, headWithBlobs } from '../upstreams/chain-model';

let upstreams: Upstreams;
// Frozen at the head the clock gives when the tests start: a number mainnet can have now.
let HEAD = 0;
const gwei = (wei: bigint) => Number(formatGwei(wei));
const labelOf = (index: number) => `rpc-${index + 1}`;

async function getGas(deps: TestDeps) {
  const res = await createApp(deps).request('/api/gas');
  return { res, body: (await res.json()) as z.infer<typeof GasResponseSchema> };
}

beforeAll(async () => {
  upstreams = await startUpstreams();
  HEAD = upstreams.mainnet[0]!.model.headNumber(HEALTHY_VIEW);
});
afterEach(async () => {
  await upstreams.reset();
});
afterAll(async () => {
  await upstreams?.close();
});

function freezeHeads() {
  for (const sim of upstreams.mainnet) sim.setHead({ number: HEAD });
}

describe('GET /api/gas wallet-grade fields (simulated providers with real blob blocks)', () => {
  it('serves the exact next base fee, fee pairs per tier and the blob market the node reports', async () => {
    freezeHeads();
    const { res, body } = await getGas(createTestDeps(upstreams.env));
    expect(res.status).toBe(200);
    const model = upstreams.mainnet[0]!.model;
    const next = model.fees(HEAD + 1, HEALTHY_VIEW);
    const latest = model.fees(HEAD, HEALTHY_VIEW);
    expect(body.nextBaseFee).toBe(gwei(next.baseFee));
    expect(body.blobBaseFee).toBe(gwei(latest.blobBaseFee));
    expect(body.nextBlobBaseFee).toBe(gwei(next.blobBaseFee));
    let ratios = 0;
    for (let n = HEAD - 19; n <= HEAD; n += 1) ratios += model.fees(n, HEALTHY_VIEW).blobGasUsedRatio;
    expect(body.blobGasUsedRatio).toBeCloseTo(ratios / 20, 12);
    expect(body.maxBlobsPerBlock).toBe(latest.blobGasUsed > 0n ? 21 : null);
    expect(body.gasUsedRatio).toBeGreaterThan(0);
    expect(['rising', 'falling', 'flat']).toContain(body.baseFeeTrend);
    // No database in this test: the rank is null and says why in the log.
    expect(body.baseFeePercentile7d).toBeNull();
    const { low, average, high } = body.tiers;
    for (const tier of [low, average, high]) {
      expect(tier.maxFeePerGas).toBeGreaterThanOrEqual(body.nextBaseFee + tier.maxPriorityFeePerGas - 1e-9);
      expect(tier.estimatedWaitSeconds?.p50).toBeLessThanOrEqual(tier.estimatedWaitSeconds?.p90 ?? 0);
    }
    for (const field of ['maxPriorityFeePerGas', 'maxFeePerGas'] as const) {
      expect(low[field]).toBeLessThanOrEqual(average[field]);
      expect(average[field]).toBeLessThanOrEqual(high[field]);
    }
    // The original numbers stay: next base fee + the tier's priority fee, exact to the wei, so a
    // legacy gas price of `low` is never below the next base fee.
    for (const name of ['low', 'average', 'high'] as const) {
      const sumWei =
        parseGwei(body.nextBaseFee.toFixed(9)) + parseGwei(body.tiers[name].maxPriorityFeePerGas.toFixed(9));
      expect(parseGwei(body[name].toFixed(9))).toBe(sumWei);
    }
    expect(body.baseFee).toBe(body.nextBaseFee);
  });

  it('keeps the per-block blob maximum from the last reading when the newest block carried no blob', async () => {
    const withBlobs = headWithBlobs(upstreams);
    const model = upstreams.mainnet[0]!.model;
    let without = withBlobs;
    while (model.fees(without, HEALTHY_VIEW).blobGasUsed > 0n) without += 1;
    for (const sim of upstreams.mainnet) sim.setHead({ number: withBlobs });
    const deps = createTestDeps(upstreams.env);
    expect((await getGas(deps)).body.maxBlobsPerBlock).toBe(21);
    for (const sim of upstreams.mainnet) sim.setHead({ number: without });
    requireFreshReading(deps, CURRENT_GAS_LAST_GOOD_KEY);
    const { body } = await getGas(deps);
    expect(body.blockNumber).toBe(without);
    expect(body.maxBlobsPerBlock).toBe(21);
    // A fresh process with no earlier reading cannot know it from a blob-less block.
    expect((await getGas(createTestDeps(upstreams.env))).body.maxBlobsPerBlock).toBeNull();
  });

  it('asks each refresh in one batched HTTP request: fee history, latest block, blob base fee', async () => {
    freezeHeads();
    const deps = createTestDeps(upstreams.env);
    await getGas(deps);
    const primary = upstreams.mainnet[0]!;
    expect(primary.requests.total).toBe(1);
    expect(primary.requests.log[0]?.keys.sort()).toEqual(
      ['eth_blobBaseFee', 'eth_chainId', 'eth_feeHistory', 'eth_getBlockByNumber'].sort(),
    );
    requireFreshReading(deps, CURRENT_GAS_LAST_GOOD_KEY);
    await getGas(deps);
    expect(primary.requests.total).toBe(2);
    expect(primary.requests.log[1]?.keys.sort()).toEqual([
      'eth_blobBaseFee',
      'eth_feeHistory',
      'eth_getBlockByNumber',
    ]);
  });

  it('asks a provider that refuses batches again with single requests, at once and for the next 10 minutes', async () => {
    freezeHeads();
    const primary = upstreams.mainnet[0]!;
    await primary.fault('no-batch');
    const deps = createTestDeps(upstreams.env);
    const first = await getGas(deps);
    expect(first.body.source).toBe(labelOf(0));
    expect(first.body.nextBlobBaseFee).not.toBeNull();
    expect(deps.logs.some((l) => l.includes('refuses batches') && l.includes(labelOf(0)))).toBe(true);
    const before = primary.requests.total;
    requireFreshReading(deps, CURRENT_GAS_LAST_GOOD_KEY);
    await getGas(deps);
    expect(primary.requests.total - before).toBe(3);
  });

  it("asks singly a provider that refuses batches over 3 calls with an HTTP 500 (dRPC's free tier)", async () => {
    freezeHeads();
    const primary = upstreams.mainnet[0]!;
    await primary.fault('batch-limit', { max: 3 });
    const deps = createTestDeps(upstreams.env);
    // A cold instance: its first batch holds the chain-id check beside the fee reads, over the limit.
    // Until 2026-11-28 the 500 was a failed attempt, so this provider never served a cold instance.
    const first = await getGas(deps);
    expect(first.body.source).toBe(labelOf(0));
    expect(first.body.nextBlobBaseFee).not.toBeNull();
    expect(deps.logs.some((l) => l.includes('refuses batches') && l.includes(labelOf(0)))).toBe(true);
  });

  it('serves everything else with null blob fields from a node without EIP-4844, naming it in the log', async () => {
    freezeHeads();
    for (const sim of upstreams.mainnet) sim.setBlobSupport('none');
    const deps = createTestDeps(upstreams.env);
    const { res, body } = await getGas(deps);
    expect(res.status).toBe(200);
    expect(body.source).toBe(labelOf(0));
    expect(body).toMatchObject({
      blobBaseFee: null,
      nextBlobBaseFee: null,
      blobGasUsedRatio: null,
      maxBlobsPerBlock: null,
    });
    expect(body.nextBaseFee).toBeGreaterThan(0);
    expect(body.tiers.average.maxFeePerGas).toBeGreaterThan(0);
    expect(
      deps.logs.some((l) => l.includes('blob fees unavailable') && l.includes(`"provider":"${labelOf(0)}"`)),
    ).toBe(true);
  });

  it('still reads the blob fees from the fee history when eth_blobBaseFee is missing', async () => {
    freezeHeads();
    upstreams.mainnet[0]!.setBlobSupport('no-method');
    const { body } = await getGas(createTestDeps(upstreams.env));
    expect(body.source).toBe(labelOf(0));
    expect(body.nextBlobBaseFee).toBe(
      gwei(upstreams.mainnet[0]!.model.fees(HEAD + 1, HEALTHY_VIEW).blobBaseFee),
    );
  });

  it('derives wei-exact fee pairs, the gas-used ratio and the trend from the explorer backstop, with nulls where it has no per-block data', async () => {
    for (const sim of upstreams.mainnet) await sim.fault('refuse');
    upstreams.etherscan.setOracle({
      SafeGasPrice: '0.523456789',
      ProposeGasPrice: '0.61',
      FastGasPrice: '1.2',
      suggestBaseFee: '0.498123456',
      // Five full blocks: the base fee rose by (9/8)^5 over them.
      gasUsedRatio: '1,1,1,1,1',
    });
    const { body } = await getGas(createTestDeps(upstreams.env));
    expect(body.source).toBe('etherscan');
    // Every digit Etherscan sent, in the original tiers and the fee pairs alike.
    expect(body).toMatchObject({
      low: 0.523456789,
      average: 0.61,
      high: 1.2,
      baseFee: 0.498123456,
      nextBaseFee: 0.498123456,
    });
    expect(body.tiers.low.maxPriorityFeePerGas).toBe(0.025333333);
    expect(body.tiers.high.maxPriorityFeePerGas).toBe(0.701876544);
    // 498,123,456 wei after 2 full blocks is 630,437,499 wei at floor(x / 8) a block, and 630,437,508
    // under an odd 30,000,001 gas limit (the worst since London, which the max fee covers), plus the tip.
    expect(body.tiers.low.maxFeePerGas).toBe(0.655770841);
    for (const tier of [body.tiers.low, body.tiers.average, body.tiers.high]) {
      expect(tier.estimatedWaitSeconds).toBeNull();
      expect(tier.maxFeePerGas).toBeGreaterThanOrEqual(body.nextBaseFee + tier.maxPriorityFeePerGas - 1e-9);
    }
    expect(body).toMatchObject({
      gasUsedRatio: 1,
      baseFeeTrend: 'rising',
      blobBaseFee: null,
      nextBlobBaseFee: null,
    });
    expect(body).not.toHaveProperty('exactGwei');
  });

  it('never serves an explorer tier below its base fee, and serves without the ratios when they are missing or broken', async () => {
    for (const sim of upstreams.mainnet) await sim.fault('refuse');
    // null: the field left out of the answer.
    for (const gasUsedRatio of [null, '', 'n/a', '0.5,1.7']) {
      upstreams.etherscan.setOracle({
        SafeGasPrice: '0.41',
        ProposeGasPrice: '0.5',
        FastGasPrice: '0.6',
        suggestBaseFee: '0.45',
        gasUsedRatio,
      });
      const { body } = await getGas(createTestDeps(upstreams.env));
      expect(body.source).toBe('etherscan');
      // Safe below the suggested base fee: the tip is 0 and low is the base fee itself.
      expect(body).toMatchObject({ low: 0.45, average: 0.5, high: 0.6, nextBaseFee: 0.45 });
      expect(body.tiers.low.maxPriorityFeePerGas).toBe(0);
      expect(body).toMatchObject({ gasUsedRatio: null, baseFeeTrend: null });
    }
  });

  it("serves from the providers through a blob-parameter fork's one-block fall of the blob fee", async () => {
    // Mainnet's BPO2 activation (2026-01-07): 1,686,487 wei, then 32,568 wei at the fork's first block.
    const steady = [30_000_000_000n, 30_000_000_000n, 30_000_000_000n];
    const tips = [1n, 1_000_000_000n, 2_000_000_000n, 3_000_000_000n];
    for (const sim of upstreams.mainnet) {
      sim.setFeeHistory({
        baseFeePerGas: steady,
        gasUsedRatio: [0.5, 0.5],
        reward: [tips, tips],
        baseFeePerBlobGas: [1_686_487n, 32_568n, 34_001n],
        blobGasUsedRatio: [0.6, 0.7],
      });
    }
    const { res, body } = await getGas(createTestDeps(upstreams.env));
    expect(res.status).toBe(200);
    expect(body.source).toBe(labelOf(0));
    expect(body).toMatchObject({ blobBaseFee: gwei(32_568n), nextBlobBaseFee: gwei(34_001n) });
  });

  // The batch's calls can straddle a new block, or reach two backends of one load balancer: the fee
  // history's own next base fee is then a block already mined, and max fees built on it cover fewer
  // full blocks than documented.
  it('asks the fee history again at the head when the batch answered it a block behind, and serves it whole', async () => {
    freezeHeads();
    const primary = upstreams.mainnet[0]!;
    await primary.fault('lag', { methods: ['eth_feeHistory'], blocks: 1, times: 1 });
    const { res, body } = await getGas(createTestDeps(upstreams.env));
    expect(res.status).toBe(200);
    expect(body.source).toBe(labelOf(0));
    expect(primary.requests.total).toBe(2);
    const next = primary.model.fees(HEAD + 1, HEALTHY_VIEW);
    expect(body.blockNumber).toBe(HEAD);
    expect(body.nextBaseFee).toBe(gwei(next.baseFee));
    expect(body.blobBaseFee).toBe(gwei(primary.model.fees(HEAD, HEALTHY_VIEW).blobBaseFee));
    expect(body.nextBlobBaseFee).toBe(gwei(next.blobBaseFee));
  });

  it.each([1, 2])(
    'serves the base fee after the head from its header when the fee history stays %i block(s) behind it, without blob fees',
    async (behind) => {
      freezeHeads();
      for (const sim of upstreams.mainnet)
        await sim.fault('lag', { methods: ['eth_feeHistory'], blocks: behind });
      const deps = createTestDeps(upstreams.env);
      const { res, body } = await getGas(deps);
      expect(res.status).toBe(200);
      expect(body.source).toBe(labelOf(0));
      const model = upstreams.mainnet[0]!.model;
      const head = model.fees(HEAD, HEALTHY_VIEW);
      // The header as the simulator serves it (gas used rounded from its ratio).
      const gasUsed = BigInt(Math.round(head.gasUsedRatio * Number(model.profile.gasLimit)));
      const next = computeNextBaseFee(head.baseFee, gasUsed, model.profile.gasLimit);
      expect(body.blockNumber).toBe(HEAD);
      expect(body.nextBaseFee).toBe(gwei(next));
      for (const name of ['low', 'average', 'high'] as const) {
        const tier = body.tiers[name];
        const tip = parseGwei(tier.maxPriorityFeePerGas.toFixed(9));
        expect(parseGwei(tier.maxFeePerGas.toFixed(9))).toBe(
          computeMaxFeePerGas(next, tip, TIER_HEADROOM_BLOCKS[name]),
        );
        expect(parseGwei(body[name].toFixed(9))).toBe(next + tip);
      }
      // The history holds neither the head's blob fee nor the next one's: none is served, the rest is.
      expect(body).toMatchObject({ blobBaseFee: null, nextBlobBaseFee: null, blobGasUsedRatio: null });
      expect(deps.logs.some((l) => l.includes('blob fees unavailable') && l.includes('"kind":"lag"'))).toBe(
        true,
      );
      expect(deps.logs.some((l) => l.includes('rpc attempt failed'))).toBe(false);
    },
  );

  it('rejects a head whose base fee does not follow from the fee history behind it, and fails over', async () => {
    freezeHeads();
    for (const sim of upstreams.mainnet) await sim.fault('lag', { methods: ['eth_feeHistory'], blocks: 1 });
    await upstreams.mainnet[0]!.fault('absurd', { methods: ['eth_getBlockByNumber'], value: 10n ** 11n });
    const deps = createTestDeps(upstreams.env);
    const { body } = await getGas(deps);
    expect(body.source).toBe(labelOf(1));
    expect(
      deps.logs.some((l) => l.includes(`"provider":"${labelOf(0)}"`) && l.includes('"kind":"lag"')),
    ).toBe(true);
  });

  it('rejects a head ahead of the fee history that used more gas than its limit, and fails over', async () => {
    freezeHeads();
    for (const sim of upstreams.mainnet) await sim.fault('lag', { methods: ['eth_feeHistory'], blocks: 1 });
    const primaryUrl = upstreams.env.MAINNET_RPC_URLS?.split(',')[0] ?? '';
    const overfull: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input instanceof Request ? input.url : input).startsWith(primaryUrl)) return res;
      const body = (await res.json()) as { result?: { gasLimit?: string; gasUsed?: string } }[];
      for (const item of Array.isArray(body) ? body : [body]) {
        if (item.result?.gasLimit)
          item.result.gasUsed = `0x${(BigInt(item.result.gasLimit) * 10n).toString(16)}`;
      }
      return Response.json(body, { status: res.status });
    };
    const deps = createTestDeps(upstreams.env, { fetch: overfull });
    const { body } = await getGas(deps);
    expect(body.source).toBe(labelOf(1));
    expect(
      deps.logs.some((l) => l.includes(`"provider":"${labelOf(0)}"`) && l.includes('"kind":"absurd"')),
    ).toBe(true);
  });

  it('rejects a provider whose blob fee is absurd and fails over, like an absurd fee history', async () => {
    const history = {
      baseFeePerGas: [30_000_000_000n, 30_000_000_000n, 30_000_000_000n],
      gasUsedRatio: [0.5, 0.5],
      reward: [
        [1n, 1_000_000_000n, 2_000_000_000n, 3_000_000_000n],
        [1n, 1_000_000_000n, 2_000_000_000n, 3_000_000_000n],
      ],
    };
    upstreams.mainnet[0]!.setFeeHistory({
      ...history,
      baseFeePerBlobGas: [10n ** 15n, 10n ** 15n, 10n ** 15n],
      blobGasUsedRatio: [0.5, 0.5],
    });
    upstreams.mainnet[1]!.setFeeHistory(history);
    const deps = createTestDeps(upstreams.env);
    const { body } = await getGas(deps);
    expect(body.source).toBe(labelOf(1));
    expect(body.nextBlobBaseFee).toBe(1e-9);
    expect(
      deps.logs.some((l) => l.includes(`"provider":"${labelOf(0)}"`) && l.includes('"kind":"absurd"')),
    ).toBe(true);
  });
});

describe('baseFeePercentile7d from the stored history (PGlite)', () => {
  let engine: DatabaseEngine;
  beforeAll(async () => {
    engine = await openDatabase({ kind: 'pglite' });
    await engine.migrate();
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('is null with less than a day stored and ranks the base fee among the last 7 days after', async () => {
    freezeHeads();
    const now = Math.floor(Date.now() / 90_000) * 90_000;
    const row = (slotStart: number, baseFeeGwei: number) => ({
      slotStart,
      readAt: slotStart,
      blockNumber: 1,
      baseFeeGwei,
      lowGwei: baseFeeGwei,
      averageGwei: baseFeeGwei,
      highGwei: baseFeeGwei,
      source: 'test',
    });
    await engine.withDb((db) =>
      insertMainnetSnapshots(db, [row(now - 90_000 * 10, 1), row(now - 90_000 * 20, 1_000)]),
    );
    const deps = createTestDeps(upstreams.env, { withDb: engine.withDb });
    expect((await getGas(deps)).body.baseFeePercentile7d).toBeNull();

    // Two days back: 300 rows, 100 of them below the current base fee, 200 above; one older than 7 days.
    const { body: probe } = await getGas(createTestDeps(upstreams.env));
    const base = probe.baseFee;
    const rows = Array.from({ length: 300 }, (_, i) =>
      row(now - 90_000 * (100 + i * 5), i < 100 ? base / 2 : base * 2),
    );
    rows.push(row(now - 8 * 86_400_000 - 90_000 * 3, base / 2));
    await engine.withDb((db) => insertMainnetSnapshots(db, rows));
    requireFreshReading(deps, CURRENT_GAS_LAST_GOOD_KEY);
    // 302 in the window: 100 below, 2 above (the first two rows: 1 and 1,000 gwei; 1 < base), 200 above.
    const below = 100 + (base > 1 ? 1 : 0);
    expect((await getGas(deps)).body.baseFeePercentile7d).toBe(Math.round((below / 302) * 1000) / 10);
  });
});
