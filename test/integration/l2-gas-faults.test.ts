import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { L2GasResponseSchema } from '../../lib/schemas/l2-gas';
import { createTestDeps } from '../helpers/deps';
import {
  expectNoLeaks,
  type FaultMode,
  L2_NAMES,
  type L2Name,
  startUpstreams,
  type Upstreams,
} from '../upstreams';

let up: Upstreams;

beforeAll(async () => {
  up = await startUpstreams();
});
afterEach(async () => {
  await up.reset();
});
afterAll(async () => {
  await up?.close();
});

/**
 * The upstream budget per call: short where a provider hangs, so those cases stay quick, and ample
 * otherwise, so a loaded machine's slow but healthy answers are never mistaken for faults.
 */
const budgetFor = (mode: FaultMode) => (mode === 'hang' ? '1000' : '10000');

/** One request to a fresh app. */
async function getL2Gas(mode: FaultMode) {
  const deps = createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: budgetFor(mode) });
  const res = await createApp(deps).request('/api/l2-gas');
  const raw = await res.text();
  expect(res.status).toBe(200);
  expectNoLeaks(up, raw, ...deps.logs);
  const body = L2GasResponseSchema.parse(JSON.parse(raw));
  expect(body.networks.map((n) => n.id)).toEqual(['arbitrum', 'optimism', 'base', 'polygon']);
  return { body, logs: deps.logs };
}

/** The gas price a healthy provider of `name` answers, asked directly. */
async function healthyGasPriceGwei(name: L2Name): Promise<number> {
  const sim = up.l2[name][1];
  if (!sim) throw new Error('no second provider');
  const res = await fetch(sim.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_gasPrice', params: [] }),
  });
  const { result } = (await res.json()) as { result: string };
  return Number(BigInt(result)) / 1e9;
}

// Each fault as a provider would show it: another chain's id, no answer, half a JSON body, 1e7 gwei.
const MODES: Array<{ mode: FaultMode; kind: string }> = [
  { mode: 'wrong-chain', kind: 'wrong-chain' },
  // A hung first provider is overtaken by the hedged second one and counted as outrun.
  { mode: 'hang', kind: 'outrun' },
  { mode: 'malformed', kind: 'malformed' },
  { mode: 'absurd', kind: 'absurd' },
  { mode: 'stale', kind: 'stale' },
];
const CASES = L2_NAMES.flatMap((name) => MODES.map(({ mode, kind }) => ({ name, mode, kind })));

describe('GET /api/l2-gas when L2 providers fail', () => {
  it.each(CASES)(
    '$name: a first provider with $mode is skipped and the second one serves',
    async ({ name, mode, kind }) => {
      await up.l2[name][0]?.fault(mode);
      const { body, logs } = await getL2Gas(mode);
      const served = body.networks.find((n) => n.id === name);
      expect(served?.gasPriceGwei).toBe(await healthyGasPriceGwei(name));
      expect(served?.executionGasCostUsd).toBeGreaterThan(0);
      expect(served?.feeNote).not.toMatch(/unavailable/i);
      expect(
        logs.some((line) => line.includes('rpc attempt failed') && line.includes(`"kind":"${kind}"`)),
      ).toBe(true);
    },
  );

  it.each(CASES)(
    '$name: with $mode on every provider it is unavailable and the others are served',
    async ({ name, mode }) => {
      await Promise.all(up.l2[name].map((sim) => sim.fault(mode)));
      const { body } = await getL2Gas(mode);
      for (const network of body.networks) {
        if (network.id === name) {
          expect(network).toMatchObject({
            gasPriceGwei: null,
            executionGasCostUsd: null,
            estimatedL1DataFeeUsd: null,
            estimatedWalletFeeUsd: null,
          });
          expect(network.feeNote).toMatch(/^Reading unavailable: no .* provider answered/);
          // Nothing partial is served: the completeness stays SPEC decision 5's for the fee model.
          expect(network.feeCompleteness).toBe(name === 'arbitrum' ? 'execution_only' : 'full_estimate');
        } else {
          expect(network.gasPriceGwei).toBeGreaterThan(0);
          expect(network.executionGasCostUsd).toBeGreaterThan(0);
        }
      }
    },
  );
});
