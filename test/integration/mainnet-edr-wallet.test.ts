import { createServer } from 'node:net';
import { formatGwei, parseGwei } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createApp } from '../../functions/app';
import { TIER_HEADROOM_BLOCKS, TIER_NAMES } from '../../lib/oracle/max-fee';
import type { GasResponseSchema } from '../../lib/schemas/current-gas';
import { createTestDeps } from '../helpers/deps';
import { type EdrNode, startEdrNode } from './helpers/edr-node';

const GWEI = 1_000_000_000n;
const TRANSFERS_PER_BLOCK = 10;
const toHex = (value: bigint | number) => `0x${value.toString(16)}`;
type Gas = z.infer<typeof GasResponseSchema>;

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/rpc`;
}

interface Block {
  number: string;
  baseFeePerGas: string;
  gasUsed: string;
  gasLimit: string;
}

describe('wallet-grade fees against a real EVM node (EDR, L1 rules)', () => {
  let edr: EdrNode;
  let accounts: string[];
  let nonce = 0;

  const latest = async () =>
    (await edr.provider.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as Block;

  /** Mines one block filled to its gas limit by ten 21,000-gas transfers at 1..10 gwei tips. */
  async function mineFullBlock(): Promise<Block> {
    for (let i = 0; i < TRANSFERS_PER_BLOCK; i += 1) {
      await edr.provider.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from: accounts[i],
            to: accounts[19],
            value: '0x1',
            gas: toHex(21_000),
            nonce: toHex(nonce),
            maxPriorityFeePerGas: toHex(BigInt(i + 1) * GWEI),
            maxFeePerGas: toHex(100_000n * GWEI),
          },
        ],
      });
    }
    nonce += 1;
    await edr.provider.request({ method: 'evm_mine', params: [] });
    const block = await latest();
    expect(BigInt(block.gasUsed)).toBe(BigInt(block.gasLimit));
    return block;
  }

  async function readGas(): Promise<Gas> {
    const deps = createTestDeps({ MAINNET_RPC_URLS: edr.url, ETHERSCAN_API_URL: await closedPortUrl() });
    const res = await createApp(deps).request('/api/gas');
    expect(res.status).toBe(200);
    return (await res.json()) as Gas;
  }

  beforeAll(async () => {
    edr = await startEdrNode('l1', { chainId: 1, blockGasLimit: 21_000n * BigInt(TRANSFERS_PER_BLOCK) });
    accounts = (await edr.provider.request({ method: 'eth_accounts' })) as string[];
    await edr.provider.request({ method: 'evm_setAutomine', params: [false] });
    for (let i = 0; i < 3; i += 1) await mineFullBlock();
  });

  afterAll(async () => {
    await edr?.close();
  });

  it('gives the next base fee to the wei: the base fee EDR then gives the next block', async () => {
    for (const fill of ['full', 'empty', 'full']) {
      const gas = await readGas();
      const block = fill === 'full' ? await mineFullBlock() : await mineEmpty();
      expect(parseGwei(gas.nextBaseFee.toFixed(9))).toBe(BigInt(block.baseFeePerGas));
      expect(gas.baseFeeTrend).toBeDefined();
    }
    async function mineEmpty() {
      await edr.provider.request({ method: 'evm_mine', params: [] });
      return latest();
    }
  });

  it("keeps every tier's max fee at or above the base fee through its number of full blocks, exactly", async () => {
    const gas = await readGas();
    const window = (await edr.provider.request({
      method: 'eth_feeHistory',
      params: ['0x14', 'latest', []],
    })) as { gasUsedRatio: number[] };
    const bases: bigint[] = [];
    for (let i = 0; i <= Math.max(...Object.values(TIER_HEADROOM_BLOCKS)); i += 1) {
      bases.push(BigInt((await mineFullBlock()).baseFeePerGas));
    }
    for (const name of TIER_NAMES) {
      const tier = gas.tiers[name];
      const n = TIER_HEADROOM_BLOCKS[name];
      const maxFee = parseGwei(tier.maxFeePerGas.toFixed(9));
      const tip = parseGwei(tier.maxPriorityFeePerGas.toFixed(9));
      // The n-th full block after the next one has exactly the base fee the max fee leaves room for.
      expect(maxFee - tip).toBe(bases[n]);
      expect(maxFee).toBeGreaterThanOrEqual(bases[0]! + tip);
    }
    // The tips EDR saw: 1..10 gwei in every block, so p70 / p90 / p99 = 7, 9, 10 gwei.
    expect(gas.tiers.low.maxPriorityFeePerGas).toBe(7);
    expect(gas.tiers.average.maxPriorityFeePerGas).toBe(9);
    expect(gas.tiers.high.maxPriorityFeePerGas).toBe(10);
    const ratios = window.gasUsedRatio;
    expect(gas.gasUsedRatio).toBeCloseTo(ratios.reduce((a, b) => a + b, 0) / ratios.length, 12);
    expect(gas.baseFeeTrend).toBe('rising');
    expect(Number(formatGwei(BigInt(bases[0]!)))).toBe(gas.nextBaseFee);
  });

  it("serves EDR's eth_blobBaseFee as the next block's blob base fee (its fee history has no blob fields)", async () => {
    const gas = await readGas();
    const blobBaseFee = BigInt((await edr.provider.request({ method: 'eth_blobBaseFee' })) as string);
    expect(parseGwei(gas.nextBlobBaseFee!.toFixed(9))).toBe(blobBaseFee);
    expect(gas.blobBaseFee).toBeNull();
  });
});
