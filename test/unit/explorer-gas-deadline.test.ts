// lib/services/explorer-gas.ts: the explorer backstop within the refresh's deadline. With the
// providers having taken nearly all of it, neither the known head's recall (a store call) nor the
// gas oracle is asked: each could only run out of time, and a store call cut that short is no news
// of the store.
import { expect, it } from 'vitest';
import { readExplorerGas } from '../../lib/services/explorer-gas';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { EtherscanError } from '../../lib/upstream/etherscan';
import { createTestDeps } from '../helpers/deps';

const NOW = 1_795_797_910_000;

function countingDeps() {
  const store = createMemoryLastGoodStore(() => NOW);
  const calls = { store: 0, fetch: 0 };
  const lastGood: LastGoodStore = {
    ...store,
    get: (key) => {
      calls.store += 1;
      return store.get(key);
    },
  };
  const deps = createTestDeps(
    { ETHERSCAN_API_URL: 'http://explorer.invalid/v2/api' },
    {
      now: () => NOW,
      lastGood,
      fetch: () => {
        calls.fetch += 1;
        return Promise.reject(new Error('not asked in this test'));
      },
    },
  );
  return { deps, calls };
}

it('asks neither the store nor the explorer with under 100 ms of the refresh left', async () => {
  const { deps, calls } = countingDeps();
  const error = await readExplorerGas(deps, NOW + 99).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EtherscanError);
  expect((error as EtherscanError).kind).toBe('timeout');
  // Until later on 2026-11-28 the known head's recall went to the store with what was left (down to
  // 1 ms), and its timeout sent the instance off the store.
  expect(calls).toEqual({ store: 0, fetch: 0 });
});

it('with time left, recalls the known head and asks the explorer', async () => {
  const { deps, calls } = countingDeps();
  await expect(readExplorerGas(deps, NOW + 2_000)).rejects.toBeInstanceOf(EtherscanError);
  expect(calls).toEqual({ store: 1, fetch: 1 });
});
