import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { computeNextBaseFee } from '../../lib/oracle/fee-history';
import { createTestDeps } from '../helpers/deps';
import { closedPortUrl } from '../helpers/free-port';
import { expectNoLeaks } from '../upstreams';
import { type EdrNode, startEdrNode } from './helpers/edr-node';

const GWEI = 1_000_000_000n;
const toHex = (value: bigint) => `0x${value.toString(16)}`;

/**
 * Priority fees (in tenths of a gwei) of the ten plain transfers (21,000 gas each) in each mined block.
 * With equal gas, the 70th / 90th / 99th percentile rewards are the 7th / 9th / 10th smallest tips.
 */
const BLOCK_TIPS_DECIGWEI: number[][] = [
  [10, 20, 30, 40, 50, 60, 70, 80, 90, 100], // p70 7, p90 9, p99 10 gwei
  [20, 40, 60, 80, 100, 120, 140, 160, 180, 200], // 14, 18, 20
  [5, 10, 15, 20, 25, 30, 35, 40, 45, 50], // 3.5, 4.5, 5
  [], // an empty block: its zero rewards must not count
  [100, 10, 90, 20, 80, 30, 70, 40, 60, 50], // 7, 9, 10 (sent out of order)
  [30, 40, 50, 60, 70, 80, 90, 100, 110, 120], // 9, 11, 12
];
// Medians over the five non-empty blocks: p70 of [7, 14, 3.5, 7, 9] = 7; p90 of [9, 18, 4.5, 9, 11] = 9;
// p99 of [10, 20, 5, 10, 12] = 10 gwei.
const EXPECTED_TIPS = { low: 7n * GWEI, average: 9n * GWEI, high: 10n * GWEI };

/** Wei to gwei, exact to the wei (the nearest double), computed independently of the oracle's helper. */
const gweiOf = (wei: bigint) => Number(wei) / 1e9;

describe('GET /api/gas against a real EVM node (EDR)', () => {
  let edr: EdrNode;
  let nextBaseFee: bigint;
  let latestNumber = 0;

  beforeAll(async () => {
    // EDR 0.22 measures reward percentiles against the block gas *limit* where geth uses gas used; with
    // blocks exactly filled by the ten transfers both agree, so the expected values are geth's.
    edr = await startEdrNode('l1', { chainId: 1, blockGasLimit: 210_000n });
    const { provider } = edr;
    const accounts = (await provider.request({ method: 'eth_accounts' })) as string[];
    await provider.request({ method: 'evm_setAutomine', params: [false] });
    for (const tips of BLOCK_TIPS_DECIGWEI) {
      for (const [i, tip] of tips.entries()) {
        await provider.request({
          method: 'eth_sendTransaction',
          params: [
            {
              from: accounts[i],
              to: accounts[19],
              value: '0x1',
              gas: toHex(21_000n),
              maxPriorityFeePerGas: toHex((BigInt(tip) * GWEI) / 10n),
              maxFeePerGas: toHex(1_000n * GWEI),
            },
          ],
        });
      }
      await provider.request({ method: 'evm_mine', params: [] });
    }
    const latest = (await provider.request({
      method: 'eth_getBlockByNumber',
      params: ['latest', false],
    })) as {
      number: string;
      baseFeePerGas: string;
      gasUsed: string;
      gasLimit: string;
      transactions: string[];
    };
    expect(latest.transactions).toHaveLength(10);
    latestNumber = Number(latest.number);
    nextBaseFee = computeNextBaseFee(
      BigInt(latest.baseFeePerGas),
      BigInt(latest.gasUsed),
      BigInt(latest.gasLimit),
    );
  });

  afterAll(async () => {
    await edr?.close();
  });

  it('serves next base fee + the median of the 70/90/99th percentile tips the transactions paid', async () => {
    const deps = createTestDeps({
      MAINNET_RPC_URLS: `edr=${edr.url}`,
      ETHERSCAN_API_URL: await closedPortUrl(),
    });
    const res = await createApp(deps).request('/api/gas');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      low: gweiOf(nextBaseFee + EXPECTED_TIPS.low),
      average: gweiOf(nextBaseFee + EXPECTED_TIPS.average),
      high: gweiOf(nextBaseFee + EXPECTED_TIPS.high),
      baseFee: gweiOf(nextBaseFee),
      blockNumber: latestNumber,
      source: 'edr',
      tier: 'free',
    });
  });

  it('fails over from a refusing primary to the node at once, naming the node by its place as source', async () => {
    const dead = await closedPortUrl();
    const deps = createTestDeps({
      MAINNET_RPC_URLS: `${dead},${edr.url}`,
      ETHERSCAN_API_URL: await closedPortUrl(),
    });
    const res = await createApp(deps).request('/api/gas');
    const body = (await res.json()) as Record<string, unknown>;
    // Both listen on 127.0.0.1, an address-only host: labelled by their place in the list, never the address.
    expect(body.source).toBe('rpc-2');
    const configured = [dead, edr.url].map((url) => ({ url, port: Number(new URL(url).port) }));
    expectNoLeaks({ secrets: [], all: configured }, JSON.stringify(body), ...deps.logs);
    expect(body.high).toBe(gweiOf(nextBaseFee + EXPECTED_TIPS.high));
    expect(
      deps.logs.some((line) => line.includes('rpc attempt failed') && line.includes('"kind":"network"')),
    ).toBe(true);
  });

  it('rejects the node when the pool expects another chain id', async () => {
    // At mainnet's height, so that only its chain id tells it apart.
    const other = await startEdrNode('l1', { chainId: 31_337, atMainnetHeight: true });
    try {
      const deps = createTestDeps({ MAINNET_RPC_URLS: other.url, ETHERSCAN_API_URL: await closedPortUrl() });
      const res = await createApp(deps).request('/api/gas');
      expect(res.status).toBe(503);
      expect(deps.logs.some((line) => line.includes('"kind":"wrong-chain"'))).toBe(true);
    } finally {
      await other.close();
    }
  });
});
