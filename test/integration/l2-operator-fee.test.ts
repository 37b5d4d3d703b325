import { formatEther } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { type L2GasResponse, L2GasResponseSchema } from '../../lib/schemas/l2-gas';
import { createTestDeps } from '../helpers/deps';
import { expectNoLeaks, startUpstreams, type Upstreams } from '../upstreams';
import {
  KNOWN_L2_GAS_WEI,
  KNOWN_OP_L1_FEE_WEI,
  KNOWN_OP_OPERATOR_FEE,
  KNOWN_USD,
  setKnownState,
} from '../upstreams/known-state';

/*
 * The OP Stack operator fee (Isthmus; Jovian's formula) on GET /api/l2-gas: read with the L1 data fee
 * from the GasPriceOracle (getOperatorFee(21000)), added to the wallet fee, and degrading with it.
 */

// One clock for the app and the simulators' chain heads, moved by tests to step past caches.
let clock = Date.now();
const now = () => clock;
let up: Upstreams;

/** The operator fee of the 21,000-gas transfer each simulated chain charges under KNOWN_OP_OPERATOR_FEE. */
const OPERATOR_FEE_WEI = {
  optimism: 21_000n * 3n * 100n + 2_500_000_000n, // Jovian: 2,506,300,000
  base: (21_000n * 1_234_567n) / 1_000_000n + 1_000_000_007n, // Isthmus: 1,000,025,932
} as const;
const ETH_USD = KNOWN_USD.ETH;

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

function instance() {
  const deps = createTestDeps(
    { ...up.env, UPSTREAM_TIMEOUT_MS: '500', PUBLIC_BASE_URL: 'https://gas.test' },
    { now },
  );
  const app = createApp(deps);
  return {
    deps,
    async get() {
      const res = await app.request('/api/l2-gas');
      const raw = await res.text();
      expect(res.status).toBe(200);
      expectNoLeaks(up, raw, ...deps.logs);
      return L2GasResponseSchema.parse(JSON.parse(raw));
    },
  };
}

function item(body: L2GasResponse, id: 'optimism' | 'base') {
  const found = body.networks.find((n) => n.id === id);
  if (!found) throw new Error(`no ${id} in the answer`);
  return found;
}

/** USD of `wei` ETH at the known price, unrounded. */
const usdOf = (wei: bigint) => Number(formatEther(wei)) * ETH_USD;
/** Within the service's rounding: 4 significant digits, never coarser than a cent. */
const expectUsd = (served: number | null | undefined, exact: number) => {
  expect(served).not.toBeNull();
  expect(Math.abs((served ?? 0) - exact) / exact).toBeLessThanOrEqual(0.0005);
};

describe('GET /api/l2-gas: OP Stack operator fee', () => {
  it.each(['optimism', 'base'] as const)(
    '%s: adds the operator fee of the transfer to the wallet fee and serves it on its own',
    async (name) => {
      setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
      const n = item(await instance().get(), name);
      const execution = usdOf(21_000n * KNOWN_L2_GAS_WEI[name]);
      const l1 = usdOf(KNOWN_OP_L1_FEE_WEI[name]);
      const operator = usdOf(OPERATOR_FEE_WEI[name]);
      expectUsd(n.estimatedOperatorFeeUsd, operator);
      expectUsd(n.estimatedL1DataFeeUsd, l1);
      expectUsd(n.estimatedWalletFeeUsd, execution + l1 + operator);
      // The wallet fee is the three served figures added (SPEC 2.10's sum, plus the operator fee).
      expect(n.estimatedWalletFeeUsd).toBeCloseTo(
        (n.executionGasCostUsd ?? 0) + (n.estimatedL1DataFeeUsd ?? 0) + (n.estimatedOperatorFeeUsd ?? 0),
        12,
      );
      expect(n.feeCompleteness).toBe('full_estimate');
      expect(n.feeNote).toContain('+ operator fee');
    },
  );

  it('serves an operator fee of 0 where the operator sets none, with a full estimate', async () => {
    setKnownState(up);
    const base = item(await instance().get(), 'base');
    expect(base.estimatedOperatorFeeUsd).toBe(0);
    expect(base.feeCompleteness).toBe('full_estimate');
    expect(base.estimatedWalletFeeUsd).toBeCloseTo(
      (base.executionGasCostUsd ?? 0) + (base.estimatedL1DataFeeUsd ?? 0),
      12,
    );
  });

  it('serves Base as execution_only, saying why, when its oracle lacks getOperatorFee (a revert, not 0)', async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    for (const sim of up.l2.base) sim.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    const { deps, get } = instance();
    const body = await get();
    const base = item(body, 'base');
    expect(base.gasPriceGwei).toBe(0.0061);
    expect(base.executionGasCostUsd).toBeGreaterThan(0);
    // Read as one unit with the L1 fee: a wallet pays both, so neither is served without the other.
    expect(base).toMatchObject({
      estimatedL1DataFeeUsd: null,
      estimatedOperatorFeeUsd: null,
      estimatedWalletFeeUsd: null,
      feeCompleteness: 'execution_only',
    });
    expect(base.feeNote).toMatch(
      /^Execution cost only: the L1 data fee could not be read .*nor the operator fee/,
    );
    expect(deps.logs.find((line) => line.includes('l1 fee read failed'))).toContain('"kind":"rpc-error"');
    expect(deps.logs.find((line) => line.includes('l1 fee unavailable'))).toContain('"kind":"rpc-error"');
    // The other OP Stack chain is untouched.
    expect(item(body, 'optimism').feeCompleteness).toBe('full_estimate');
  });

  it("reads both fees from the next provider when the first one's oracle reverts getOperatorFee", async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    up.l2.base[0]?.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    const base = item(await instance().get(), 'base');
    expectUsd(base.estimatedOperatorFeeUsd, usdOf(OPERATOR_FEE_WEI.base));
    expect(base.feeCompleteness).toBe('full_estimate');
  });

  it.each([
    ['malformed', { methods: ['eth_call'], body: '{"jsonrpc":"2.0","id":' }],
    ['hang', { methods: ['eth_call'] }],
  ] as const)('degrades Optimism like a failed L1 fee when its oracle batch is %s', async (mode, options) => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    await Promise.all(
      up.l2.optimism.map((sim) => sim.fault(mode, { ...options, methods: [...options.methods] })),
    );
    const optimism = item(await instance().get(), 'optimism');
    expect(optimism.gasPriceGwei).toBe(Number(KNOWN_L2_GAS_WEI.optimism) / 1e9);
    expect(optimism).toMatchObject({
      estimatedOperatorFeeUsd: null,
      estimatedWalletFeeUsd: null,
      feeCompleteness: 'execution_only',
    });
  });

  it("keeps the oracle's last good operator fee with its L1 fee when the oracle then fails", async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    const { get } = instance();
    const healthy = item(await get(), 'optimism');
    const readAt = clock;
    for (const sim of up.l2.optimism) sim.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    clock += 61_000;
    const kept = item(await get(), 'optimism');
    expect(kept.feeCompleteness).toBe('full_estimate');
    expect(kept.estimatedOperatorFeeUsd).toBe(healthy.estimatedOperatorFeeUsd);
    expect(kept.estimatedWalletFeeUsd).toBe(healthy.estimatedWalletFeeUsd);
    expect(kept.feeNote).toContain(
      `last good answer, taken at ${new Date(readAt).toISOString()} (61 s earlier)`,
    );
  });
});
