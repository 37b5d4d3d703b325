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
 * The OP Stack operator fee (Isthmus; Jovian's formula) on GET /api/l2-gas: read from the
 * GasPriceOracle (getOperatorFee(21000)) apart from the L1 data fee and served as the additive
 * estimatedOperatorFeeUsd, paid on top of the wallet fee; the original fields keep SPEC 2.10's
 * meanings whether or not it could be read.
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
    '%s: serves the operator fee of the transfer on its own, on top of the wallet fee SPEC 2.10 defines',
    async (name) => {
      setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
      const n = item(await instance().get(), name);
      const execution = usdOf(21_000n * KNOWN_L2_GAS_WEI[name]);
      const l1 = usdOf(KNOWN_OP_L1_FEE_WEI[name]);
      expectUsd(n.estimatedOperatorFeeUsd, usdOf(OPERATOR_FEE_WEI[name]));
      expectUsd(n.estimatedL1DataFeeUsd, l1);
      expectUsd(n.estimatedWalletFeeUsd, execution + l1);
      // SPEC 2.10: the wallet fee is executionGasCostUsd + estimatedL1DataFeeUsd, as served.
      expect(n.estimatedWalletFeeUsd).toBeCloseTo(
        (n.executionGasCostUsd ?? 0) + (n.estimatedL1DataFeeUsd ?? 0),
        12,
      );
      expect(n.feeCompleteness).toBe('full_estimate');
      expect(n.feeNote).toContain('paid in ETH on top of the wallet fee');
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

  it("keeps Base's L1 fee, wallet fee and full_estimate when its oracle lacks getOperatorFee (pre-Isthmus)", async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    for (const sim of up.l2.base) sim.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    const { deps, get } = instance();
    const body = await get();
    const base = item(body, 'base');
    expect(base.gasPriceGwei).toBe(0.0061);
    // The L1 fee was read fine: SPEC 2.10's fields keep their meanings and values.
    expectUsd(base.estimatedL1DataFeeUsd, usdOf(KNOWN_OP_L1_FEE_WEI.base));
    expect(base.estimatedWalletFeeUsd).toBeCloseTo(
      (base.executionGasCostUsd ?? 0) + (base.estimatedL1DataFeeUsd ?? 0),
      12,
    );
    expect(base).toMatchObject({ estimatedOperatorFeeUsd: null, feeCompleteness: 'full_estimate' });
    // The feeNote says truthfully what is missing: the operator fee, not the L1 data fee.
    expect(base.feeNote).toMatch(/^Wallet fee = L2 execution/);
    expect(base.feeNote).not.toContain('L1 data fee could not be read');
    expect(base.feeNote).toContain('Operator fee unknown: getOperatorFee could not be read');
    expect(deps.logs.find((line) => line.includes('operator fee read failed'))).toContain(
      '"kind":"rpc-error"',
    );
    expect(deps.logs.find((line) => line.includes('operator fee unavailable'))).toContain(
      '"kind":"rpc-error"',
    );
    // The other OP Stack chain is untouched.
    expect(item(body, 'optimism').estimatedOperatorFeeUsd).not.toBeNull();
  });

  it('serves the operator fee when only the L1 fee fails (an L1 fee of 0), and degrades the L1 fee alone', async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    for (const sim of up.l2.optimism) sim.setL1Fee(0n);
    const optimism = item(await instance().get(), 'optimism');
    expect(optimism).toMatchObject({
      estimatedL1DataFeeUsd: null,
      estimatedWalletFeeUsd: null,
      feeCompleteness: 'execution_only',
    });
    expect(optimism.feeNote).toMatch(/^Execution cost only: the L1 data fee could not be read/);
    expectUsd(optimism.estimatedOperatorFeeUsd, usdOf(OPERATOR_FEE_WEI.optimism));
  });

  it("reads the operator fee from the next provider when the first one's oracle reverts getOperatorFee", async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    up.l2.base[0]?.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    const base = item(await instance().get(), 'base');
    expectUsd(base.estimatedOperatorFeeUsd, usdOf(OPERATOR_FEE_WEI.base));
    expect(base.feeCompleteness).toBe('full_estimate');
  });

  it.each([
    ['malformed', { methods: ['eth_call'], body: '{"jsonrpc":"2.0","id":' }],
    ['hang', { methods: ['eth_call'] }],
  ] as const)('degrades Optimism when every oracle call is %s: both fees unknown', async (mode, options) => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    await Promise.all(
      up.l2.optimism.map((sim) => sim.fault(mode, { ...options, methods: [...options.methods] })),
    );
    const optimism = item(await instance().get(), 'optimism');
    expect(optimism.gasPriceGwei).toBe(Number(KNOWN_L2_GAS_WEI.optimism) / 1e9);
    expect(optimism).toMatchObject({
      estimatedL1DataFeeUsd: null,
      estimatedOperatorFeeUsd: null,
      estimatedWalletFeeUsd: null,
      feeCompleteness: 'execution_only',
    });
  });

  it("serves the transfer's operator fee from a provider without eth_getStorageAt (missing method)", async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    await Promise.all(
      up.l2.optimism.map((sim) =>
        sim.fault('rpc-error', { methods: ['eth_getStorageAt'], code: -32601, message: 'method not found' }),
      ),
    );
    const optimism = item(await instance().get(), 'optimism');
    // The parameters price only other gas amounts; until 2026-11-28 their failure cost the fee itself.
    expectUsd(optimism.estimatedOperatorFeeUsd, usdOf(OPERATOR_FEE_WEI.optimism));
    expect(optimism.feeNote).not.toMatch(/Operator fee unknown/);
  });

  it("keeps the oracle's last good operator fee, with its own time, when getOperatorFee then fails", async () => {
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
    // The L1 fee was read live: only the operator fee is the oracle's last good answer.
    expect(kept.feeNote).toMatch(/^Wallet fee = L2 execution .*read live/);
    expect(kept.feeNote).toContain(
      `Operator fee (estimatedOperatorFeeUsd): paid in ETH on top of the wallet fee, from the GasPriceOracle's ` +
        `getOperatorFee(21000); 0 unless the chain's operator sets one. It is the oracle's last good answer, ` +
        `taken at ${new Date(readAt).toISOString()} (61 s earlier)`,
    );
  });

  it('reads Optimism on the normal cadence when its operator fee alone fails, serving it as unknown', async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    for (const sim of up.l2.optimism) sim.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    const gasPriceReads = () =>
      up.l2.optimism.reduce((sum, sim) => sum + (sim.requests.byMethod.eth_gasPrice ?? 0), 0);
    const { get } = instance();
    const first = item(await get(), 'optimism');
    expect(first).toMatchObject({ estimatedOperatorFeeUsd: null, feeCompleteness: 'full_estimate' });
    expect(first.feeNote).toContain('Operator fee unknown');
    expect(gasPriceReads()).toBe(1);
    // Not the degraded 15 s: the network is read again only when its entry is due (50 s), as a
    // complete one is; until 2026-11-28 every 15 s, four times the upstream reads for an additive field.
    for (let i = 0; i < 3; i++) {
      clock += 16_000;
      const again = item(await get(), 'optimism');
      expect(again.estimatedOperatorFeeUsd).toBeNull();
      expect(again.feeNote).toContain('Operator fee unknown');
    }
    expect(gasPriceReads()).toBe(1);
    // Past the entry's refresh point and its jitter (at most 5 s).
    clock += 8_000;
    const later = item(await get(), 'optimism');
    expect(gasPriceReads()).toBe(2);
    expect(later.feeNote).toContain('Operator fee unknown');
  });

  it('still reads Optimism again after 15 s when its L1 fee fails', async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    for (const sim of up.l2.optimism) sim.setL1Fee(0n);
    const gasPriceReads = () =>
      up.l2.optimism.reduce((sum, sim) => sum + (sim.requests.byMethod.eth_gasPrice ?? 0), 0);
    const { get } = instance();
    expect(item(await get(), 'optimism').feeCompleteness).toBe('execution_only');
    clock += 16_000;
    expect(item(await get(), 'optimism').feeCompleteness).toBe('execution_only');
    expect(gasPriceReads()).toBe(2);
  });

  it('stops serving a kept operator fee once it is 5 minutes old, though the answer is not due yet', async () => {
    setKnownState(up, { operatorFee: KNOWN_OP_OPERATOR_FEE });
    const { get } = instance();
    const start = clock;
    expect(item(await get(), 'optimism').estimatedOperatorFeeUsd).not.toBeNull();
    for (const sim of up.l2.optimism) sim.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    // Each step reads Optimism again (its entry is due, jitter included); the last one keeps the fee
    // 300 s after it was read, the longest a kept fee is served.
    for (const seconds of [61, 122, 183, 244, 300]) {
      clock = start + seconds * 1000;
      const kept = item(await get(), 'optimism');
      expect(kept.estimatedOperatorFeeUsd).not.toBeNull();
      expect(kept.feeNote).toContain(`(${seconds} s earlier)`);
    }
    // A second later the answer assembled at 300 s is still current (complete or degraded), but its
    // operator fee is past 5 minutes: it is assembled again without it.
    clock = start + 301_000;
    const expired = item(await get(), 'optimism');
    expect(expired.estimatedOperatorFeeUsd).toBeNull();
    expect(expired.feeNote).toContain('Operator fee unknown');
    expect(expired.feeCompleteness).toBe('full_estimate');
  });
});
