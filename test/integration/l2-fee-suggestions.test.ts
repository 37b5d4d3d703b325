import { formatGwei, parseGwei } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { type L2GasResponse, L2GasResponseSchema } from '../../lib/schemas/l2-gas';
import { REPRESENTATIVE_RECIPIENT } from '../../lib/upstream/op-l1-fee';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { type L2Name, startUpstreams, type Upstreams } from '../upstreams';
import { HEALTHY_VIEW } from '../upstreams/chain-model';
import { computeL1GasEstimate } from '../upstreams/node-interface';

let up: Upstreams;
const gwei = (wei: bigint) => Number(formatGwei(wei));

beforeAll(async () => {
  up = await startUpstreams();
});
afterEach(async () => {
  await up.reset();
});
afterAll(async () => {
  await up?.close();
});

async function getL2Gas(deps: TestDeps = createTestDeps(up.env)) {
  const res = await createApp(deps).request('/api/l2-gas');
  expect(res.status).toBe(200);
  const body = L2GasResponseSchema.parse(await res.json()) as L2GasResponse;
  const byId = (id: L2Name) => body.networks.find((n) => n.id === id)!;
  return { byId, logs: deps.logs };
}

/** The latest base fee the simulated chain reports (every provider of a chain agrees). */
function baseFeeOf(name: L2Name): bigint {
  const model = up.l2[name][0]!.model;
  return model.fees(model.headNumber(HEALTHY_VIEW), HEALTHY_VIEW).baseFee;
}

describe('GET /api/l2-gas fee suggestions per chain (SPEC.md extension 17)', () => {
  it('serves Arbitrum a tip of 0 and the NodeInterface L1 gas units of the representative transfer', async () => {
    const { byId } = await getL2Gas();
    const arbitrum = byId('arbitrum');
    const base = baseFeeOf('arbitrum');
    const expected = computeL1GasEstimate(REPRESENTATIVE_RECIPIENT, '0x', {
      baseFee: base,
      l1PricePerUnit: 50_000_000n,
    });
    expect(arbitrum).toMatchObject({
      baseFee: gwei(base),
      maxPriorityFeePerGas: 0,
      maxFeePerGas: gwei(2n * base),
      estimatedL1GasUnits: Number(expected),
    });
    expect(Number(expected)).toBeGreaterThan(1_000);
    for (const id of ['optimism', 'base', 'polygon'] as const)
      expect(byId(id).estimatedL1GasUnits).toBeNull();
  });

  it('reads the exact units the NodeInterface answers through its real ABI', async () => {
    for (const sim of up.l2.arbitrum) sim.setL1GasEstimate(12_345n);
    expect((await getL2Gas()).byId('arbitrum').estimatedL1GasUnits).toBe(12_345);
  });

  it.each([
    [
      'answers an error',
      async () => {
        await Promise.all(up.l2.arbitrum.map((s) => s.fault('rpc-error', { methods: ['eth_call'] })));
      },
    ],
    [
      'answers more units than a block holds',
      async () => {
        for (const s of up.l2.arbitrum) s.setL1GasEstimate(10n ** 9n);
      },
    ],
  ])('keeps Arbitrum served with null L1 gas units when the NodeInterface %s', async (_, bend) => {
    await bend();
    const { byId, logs } = await getL2Gas();
    expect(byId('arbitrum').gasPriceGwei).toBeGreaterThan(0);
    expect(byId('arbitrum').maxFeePerGas).toBeGreaterThan(0);
    expect(byId('arbitrum').estimatedL1GasUnits).toBeNull();
    expect(
      logs.some((l) => l.includes('l1 gas units read failed') && l.includes('"network":"arbitrum"')),
    ).toBe(true);
  });

  it('serves OP Stack chains their own tip market, not a mainnet-style 1.5 gwei', async () => {
    for (const sim of up.l2.optimism) sim.setMaxPriorityFee(7n);
    const { byId } = await getL2Gas();
    const optimism = byId('optimism');
    expect(optimism.maxPriorityFeePerGas).toBe(7e-9);
    expect(optimism.maxFeePerGas).toBe(gwei(2n * baseFeeOf('optimism') + 7n));
    // Base answers op-geth's default suggestion: 0.001 gwei.
    expect(byId('base').maxPriorityFeePerGas).toBe(0.001);
    expect(byId('base').baseFee).toBe(gwei(baseFeeOf('base')));
  });

  it.each([
    ['suggests 30 wei', 30n, 25],
    ['suggests 24.999999999 gwei', parseGwei('24.999999999'), 25],
    ['suggests 40 gwei', parseGwei('40'), 40],
  ])('never tips Polygon below its 25 gwei minimum: a provider that %s', async (_, suggestion, expected) => {
    for (const sim of up.l2.polygon) sim.setMaxPriorityFee(suggestion);
    const polygon = (await getL2Gas()).byId('polygon');
    expect(polygon.maxPriorityFeePerGas).toBe(expected);
    expect(polygon.maxFeePerGas).toBe(gwei(2n * baseFeeOf('polygon') + parseGwei(String(expected))));
  });

  it('tips Polygon its 25 gwei floor when eth_maxPriorityFeePerGas fails, and says so in the log', async () => {
    for (const sim of up.l2.polygon) await sim.fault('rpc-error', { methods: ['eth_maxPriorityFeePerGas'] });
    const { byId, logs } = await getL2Gas();
    expect(byId('polygon').maxPriorityFeePerGas).toBe(25);
    expect(
      logs.some((l) => l.includes('priority fee read failed') && l.includes('"network":"polygon"')),
    ).toBe(true);
  });

  it('rejects a provider whose tip is absurd and serves the next one', async () => {
    up.l2.optimism[0]!.setMaxPriorityFee(parseGwei('5000'));
    const { byId, logs } = await getL2Gas();
    expect(byId('optimism').maxPriorityFeePerGas).toBe(0.001);
    expect(logs.some((l) => l.includes('"pool":"optimism"') && l.includes('"kind":"absurd"'))).toBe(true);
  });

  it('holds maxFee >= baseFee + tip on every chain', async () => {
    const { byId } = await getL2Gas();
    for (const id of ['arbitrum', 'optimism', 'base', 'polygon'] as const) {
      const n = byId(id);
      expect(n.maxFeePerGas!).toBeGreaterThanOrEqual(n.baseFee! + n.maxPriorityFeePerGas!);
    }
  });
});
