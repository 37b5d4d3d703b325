// The hedge delays that are multiples of the pool's (lib/upstream/rpc-pool.ts, 350 ms by default):
// - a contract read that failed on an L2 gas price's provider is asked again of the other providers
//   through a pool of its own (lib/upstream/l2-gas-price.ts) whose hedge delay is twice the network
//   pool's, 700 ms: an attempt there is two round trips one after the other (the head, then the call at
//   it), so 350 ms would ask the next provider while a healthy one was still answering, and strike that
//   one as outrun (README "Layer 2 gas");
// - once every provider asked has failed, those cooling down are asked from the reserve for two hedge
//   delays each, 700 ms, not their whole timeout (README "Hedged failover").
// The providers are the loopback simulators; the timers and the clock are simulated, so a delay is its
// timer's however busy the machine, and is measured on that clock.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { L2_NETWORKS } from '../../lib/l2/networks';
import { readL2Network } from '../../lib/upstream/l2-gas-price';
import { RpcPoolError } from '../../lib/upstream/rpc-errors';
import { createRpcPool, DEFAULT_HEDGE_DELAY_MS, type RpcClient } from '../../lib/upstream/rpc-pool';
import { createTestDeps } from '../helpers/deps';
import type { RpcSim } from '../upstreams';
import { startRpcSim } from '../upstreams/rpc-sim';

// Taken before the timers are simulated: the test waits for the simulators' answers in real time.
const realSetTimeout = globalThis.setTimeout;
const pause = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));

/**
 * Resolves once `done` holds, looking every few real milliseconds (the test's own timeout bounds it).
 * Timers due now run meanwhile (viem sends a batch on a 0-ms timer); the simulated clock does not move.
 */
async function until(done: () => boolean): Promise<void> {
  while (!done()) {
    await vi.advanceTimersByTimeAsync(0);
    await pause(5);
  }
}

/** The outcome of `promise` so far: its answer or error, undefined while it is pending. */
function watch(promise: Promise<unknown>): () => unknown {
  let outcome: unknown;
  promise.then(
    (answer) => {
      outcome = answer;
    },
    (error: unknown) => {
      outcome = error;
    },
  );
  return () => outcome;
}

const arbitrum = L2_NETWORKS.find((n) => n.id === 'arbitrum')!;
let sims: RpcSim[] = [];

beforeAll(async () => {
  sims = await Promise.all(
    [1, 2, 3].map((i) => startRpcSim('arbitrum', `sim-secret-hedge-${i}`, { now: () => Date.now() })),
  );
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(Date.parse('2026-11-28T12:00:00Z'));
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(sims.map((sim) => sim.reset()));
});
afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
});

it('asks the next provider for a failed contract read after twice the hedge delay, not once', async () => {
  const [primary, second, third] = sims;
  if (!primary || !second || !third) throw new Error('no providers');
  // The first provider's NodeInterface call fails (its gas price is fine): the L1 component is asked
  // again of the second, which never answers, and then of the third.
  await primary.fault('rpc-error', { methods: ['eth_call'], code: -32000, message: 'execution reverted' });
  await second.fault('hang');
  third.setL1GasEstimate(7_000n);
  /** Each request to a provider, with the simulated time it was sent at. */
  const sent: Array<{ at: number; origin: string }> = [];
  const deps = createTestDeps(
    { ARBITRUM_RPC_URLS: sims.map((sim, i) => `p${i + 1}=${sim.url}`).join(',') },
    {
      now: () => Date.now(),
      fetch: (input, init) => {
        sent.push({ at: Date.now(), origin: new URL(input instanceof Request ? input.url : input).origin });
        return fetch(input, init);
      },
    },
  );
  const firstTo = (sim: RpcSim) => sent.find((request) => request.origin === sim.origin)?.at;

  const reading = readL2Network(deps, arbitrum);
  // The first provider's answers come in real time, on a clock that stands still: the network's pool
  // never hedges, and only the retry asks the second provider.
  await until(() => firstTo(second) !== undefined);
  const retriedAt = firstTo(second)!;
  const hedgeMs = 2 * DEFAULT_HEDGE_DELAY_MS;
  await vi.advanceTimersByTimeAsync(hedgeMs - 1);
  expect(firstTo(third)).toBeUndefined();
  // The clock stops exactly at the hedge: the third provider is asked then, not a moment earlier.
  await vi.advanceTimersByTimeAsync(1);
  expect(firstTo(third)).toBe(retriedAt + hedgeMs);

  const { provider, l1GasUnits } = await reading;
  expect(provider).toBe('p1');
  expect(l1GasUnits).toBe(7_000n);
});

it('asks a provider cooling down from the reserve for two hedge delays once the others have failed', async () => {
  const [first, second, third] = sims;
  if (!first || !second || !third) throw new Error('no providers');
  // When each request to the first provider is given up (its abort signal), on the simulated clock.
  const givenUp: number[] = [];
  // Requests sent to the first provider, counted as they are sent: the simulator's own count may take
  // in an earlier request later (one the pool gave up after it was written), and would then say the
  // reserve had asked it before the reserve began.
  let sentToFirst = 0;
  // A long attempt budget: given all of it, the reserve would hold the request for 20 s.
  const deps = createTestDeps(
    {},
    {
      now: () => Date.now(),
      fetch: (input, init) => {
        const url = new URL(input instanceof Request ? input.url : input);
        if (url.origin === first.origin) {
          sentToFirst += 1;
          init?.signal?.addEventListener('abort', () => givenUp.push(Date.now()), { once: true });
        }
        return fetch(input, init);
      },
    },
  );
  const pool = () =>
    createRpcPool(deps, {
      name: 'arbitrum',
      chainId: arbitrum.chainId,
      providers: sims.map((sim, i) => ({ url: sim.url, label: `p${i + 1}` })),
      timeoutMs: 20_000,
    });
  const blockNumber = (client: RpcClient) => client.request({ method: 'eth_blockNumber' });
  // The first provider hangs: outrun by the second at the hedge, twice, so it cools down.
  await first.fault('hang');
  for (let i = 0; i < 2; i++) {
    const before = sentToFirst;
    const outcome = watch(pool().request(blockNumber));
    await until(() => sentToFirst > before);
    await vi.advanceTimersByTimeAsync(DEFAULT_HEDGE_DELAY_MS);
    await until(() => outcome() !== undefined);
    expect(outcome()).toMatchObject({ provider: 'p2' });
  }
  // Now the two others fail at once: the first is asked from the reserve.
  await Promise.all([second.fault('refuse'), third.fault('http-500')]);
  const asked = sentToFirst;
  givenUp.length = 0;
  const startedAt = Date.now();
  const outcome = watch(pool().request(blockNumber));
  await until(() => sentToFirst > asked);
  expect(Date.now()).toBe(startedAt);
  const budgetMs = 2 * DEFAULT_HEDGE_DELAY_MS;
  await vi.advanceTimersByTimeAsync(budgetMs - 1);
  expect(givenUp).toEqual([]);
  // Its requests are given up exactly at two hedge delays, not held for the 20-s timeout.
  await vi.advanceTimersByTimeAsync(1);
  expect(givenUp.length).toBeGreaterThan(0);
  expect(new Set(givenUp)).toEqual(new Set([startedAt + budgetMs]));
  // And with them the request, as no provider answered.
  await until(() => outcome() !== undefined);
  expect(outcome()).toBeInstanceOf(RpcPoolError);
  expect((outcome() as RpcPoolError).failures).toEqual([
    expect.objectContaining({ provider: 'p2' }),
    expect.objectContaining({ provider: 'p3' }),
    { provider: 'p1', kind: 'timeout' },
  ]);
});
