// lib/services/current-gas.ts with lib/services/explorer-gas.ts and lib/store/shared-read.ts, on a
// clock the test sets: with every RPC provider down, an explorer reading whose block is 72 s to
// 5 minutes old by its own time (the proxy's) is no live reading, but one SPEC.md decision 7 lets
// mainnet gas answer from: served as `stale:etherscan`, dated by its block, unless a newer last good
// reading exists; never once its block is over 5 minutes old. The refresh still counts as failed.
// Until 2026-11-28 it was dropped, and with no last good reading the answer was 503.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GasUnavailableError } from '../../lib/errors';
import { CURRENT_GAS_LAST_GOOD_KEY, getCurrentGas } from '../../lib/services/current-gas';
import type { LastGoodStore } from '../../lib/store/last-good';
import { computeMainnetHeadFloor } from '../../lib/upstream/rpc-mainnet-gas';
import { createFaultyStore, createTestDeps } from '../helpers/deps';
import { startUpstreams, type Upstreams } from '../upstreams';

const T0 = 1_795_797_910_000;
/** A block number the clock's bounds allow at T0 (and for any block time of the minutes before). */
const BLOCK = (computeMainnetHeadFloor(T0) ?? 0) + 50_000;

/** The app's clock, which the simulators share; each test starts at T0. */
const clock = { now: T0 };
let up: Upstreams;

beforeAll(async () => {
  up = await startUpstreams({ now: () => clock.now });
});
afterEach(async () => {
  clock.now = T0;
  await up.reset();
});
afterAll(async () => {
  await up?.close();
});

/**
 * An instance (over `lastGood`, else an in-process store on the clock) whose RPC providers refuse
 * every connection and whose explorer (the Etherscan simulator) names the block the test sets in its
 * gas oracle and dates it in its proxy.
 */
async function explorerOnly(lastGood?: LastGoodStore) {
  await Promise.all(up.mainnet.map((sim) => sim.fault('refuse')));
  const deps = createTestDeps(up.env, { now: () => clock.now, ...(lastGood ? { lastGood } : {}) });
  const oracleCalls = () => up.etherscan.requests.byMethod.gasoracle ?? 0;
  /** Names block `number` and dates it `ageMs` (or up to a second more) before the clock; returns that time. */
  const blockAged = (ageMs: number, number = BLOCK) => {
    const seconds = Math.floor((clock.now - ageMs) / 1000);
    up.etherscan.setOracle({ LastBlock: String(number) });
    up.etherscan.setBlock({ number, timestamp: seconds });
    return new Date(seconds * 1000).toISOString();
  };
  blockAged(10_000);
  return { deps, oracleCalls, blockAged };
}

const unavailable = (deps: Parameters<typeof getCurrentGas>[0]) =>
  getCurrentGas(deps).then(
    () => null,
    (error: unknown) => error,
  );

describe('mainnet gas from an explorer block 72 s to 5 minutes old', () => {
  it('is served as `stale:etherscan` dated by its block, while the failed refresh backs off', async () => {
    const { deps, oracleCalls, blockAged } = await explorerOnly();
    const store = deps.lastGood;
    const blockTime = blockAged(73_000);
    const reading = await getCurrentGas(deps);
    expect(reading).toMatchObject({ source: 'stale:etherscan', blockNumber: BLOCK, updatedAt: blockTime });
    expect(reading.walletFeesNote).toContain(`taken at ${blockTime}`);
    // The entry keeps it as its last good reading, with the failure: 5 s of back-off.
    expect(await store.get(CURRENT_GAS_LAST_GOOD_KEY)).toMatchObject({
      value: { source: 'etherscan', updatedAt: blockTime },
      readAt: Date.parse(blockTime),
      failure: { count: 1, retryAt: T0 + 5_000 },
    });
    // Older than the refresh cadence, yet not refreshed within the back-off, by this instance or another.
    clock.now += 4_000;
    expect(await getCurrentGas(deps)).toMatchObject({ source: 'stale:etherscan', updatedAt: blockTime });
    const other = createTestDeps(up.env, { now: () => clock.now, lastGood: store });
    expect(await getCurrentGas(other)).toMatchObject({ source: 'stale:etherscan', updatedAt: blockTime });
    expect(oracleCalls()).toBe(1);
  });

  it('is kept by an instance without the shared store as well', async () => {
    const { deps, blockAged } = await explorerOnly(createFaultyStore('throw'));
    const blockTime = blockAged(120_000);
    expect(await getCurrentGas(deps)).toMatchObject({ source: 'stale:etherscan', updatedAt: blockTime });
  });

  it.each([
    ['over the shared store', false],
    ['on an instance without it', true],
  ])(
    'loses to a newer last good reading %s, the refresh still backing off, and wins over an older one',
    async (_, storeDown) => {
      const { deps, oracleCalls, blockAged } = await explorerOnly(
        storeDown ? createFaultyStore('throw') : undefined,
      );
      // A live explorer reading at T0 (its block 10 s old), taken at T0.
      expect(await getCurrentGas(deps)).toMatchObject({ source: 'etherscan', blockNumber: BLOCK });
      // 100 s on, the explorer's block is 120 s old: older than that reading, which stays.
      clock.now += 100_000;
      blockAged(120_000, BLOCK + 1);
      const kept = { source: 'stale:etherscan', blockNumber: BLOCK, updatedAt: new Date(T0).toISOString() };
      expect(await getCurrentGas(deps)).toMatchObject(kept);
      // The refresh failed all the same: nothing is asked again within its 5-s back-off.
      clock.now += 3_000;
      expect(await getCurrentGas(deps)).toMatchObject(kept);
      expect(oracleCalls()).toBe(2);
      if (!storeDown)
        expect(await deps.lastGood.get(CURRENT_GAS_LAST_GOOD_KEY)).toMatchObject({
          readAt: T0,
          failure: { count: 1 },
        });
      // 100 s later again (past the back-off), its block is 140 s old: newer than T0, so it is served.
      clock.now += 100_000;
      const blockTime = blockAged(140_000, BLOCK + 2);
      expect(await getCurrentGas(deps)).toMatchObject({
        source: 'stale:etherscan',
        blockNumber: BLOCK + 2,
        updatedAt: blockTime,
      });
    },
  );

  it('is served up to 5 minutes after its block, and no longer', async () => {
    const { deps, blockAged } = await explorerOnly();
    const blockTime = blockAged(5 * 60_000);
    expect(await getCurrentGas(deps)).toMatchObject({ source: 'stale:etherscan', updatedAt: blockTime });
    clock.now += 1;
    expect(await unavailable(deps)).toBeInstanceOf(GasUnavailableError);

    const cold = await explorerOnly();
    cold.blockAged(5 * 60_000 + 1_000);
    expect(await unavailable(cold.deps)).toBeInstanceOf(GasUnavailableError);
  });
});
