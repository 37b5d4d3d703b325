import { formatGwei, type Hex, parseGwei, sha256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createApp } from '../../functions/app';
import { TIER_HEADROOM_BLOCKS, TIER_NAMES } from '../../lib/oracle/max-fee';
import type { GasResponseSchema } from '../../lib/schemas/current-gas';
import { createTestDeps } from '../helpers/deps';
import { closedPortUrl } from '../helpers/free-port';
import { computeBlobBaseFee } from '../upstreams/blob-market';
import { type EdrNode, startEdrNode } from './helpers/edr-node';

const GWEI = 1_000_000_000n;
const TRANSFERS_PER_BLOCK = 10;
const toHex = (value: bigint | number) => `0x${value.toString(16)}`;
type Gas = z.infer<typeof GasResponseSchema>;
/** Hardhat's well-known first development account (public test mnemonic), funded by EDR at genesis. */
const HARDHAT_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

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

  it("keeps every tier's max fee at or above the base fee through its number of full blocks, by wei", async () => {
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
      // The n-th full block after the next one has the base fee the max fee leaves room for, give or
      // take the few wei an odd gas limit would add (this node's limit is even).
      const nth = bases[n] as bigint;
      expect(maxFee - tip).toBeGreaterThanOrEqual(nth);
      expect(maxFee - tip - nth).toBeLessThan(nth / 1_000_000n);
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

  it("serves EDR's eth_blobBaseFee as the newest block's blob base fee (its fee history has no blob fields)", async () => {
    const gas = await readGas();
    const blobBaseFee = BigInt((await edr.provider.request({ method: 'eth_blobBaseFee' })) as string);
    expect(parseGwei(gas.blobBaseFee!.toFixed(9))).toBe(blobBaseFee);
    expect(gas.nextBlobBaseFee).toBeNull();
  });
});

/** Prague's blob parameters (EIP-7691), only to check independently what EDR computed. */
const PRAGUE = { updateFraction: 5_007_716n } as const;

describe('blob fees against EDR with blob transactions (Prague rules)', () => {
  let edr: EdrNode;
  const account = privateKeyToAccount(HARDHAT_KEY_0);
  // The zero blob: its KZG commitment and proof are the point at infinity, so no trusted setup is needed.
  const blob = `0x${'00'.repeat(131_072)}` as Hex;
  const commitment = `0xc0${'00'.repeat(47)}` as Hex;
  const versionedHash = `0x01${sha256(commitment).slice(4)}` as Hex;

  beforeAll(async () => {
    edr = await startEdrNode('l1', { chainId: 1, hardfork: 'prague' });
  });
  afterAll(async () => {
    await edr?.close();
  });

  /** Sends one transaction carrying `blobs` blobs; EDR mines it at once in a block of its own. */
  async function sendBlobs(nonce: number, blobs: number): Promise<void> {
    const raw = await account.signTransaction({
      chainId: 1,
      type: 'eip4844',
      nonce,
      to: account.address,
      gas: 21_000n,
      maxFeePerGas: parseGwei('100'),
      maxPriorityFeePerGas: parseGwei('1'),
      maxFeePerBlobGas: parseGwei('1'),
      blobVersionedHashes: Array(blobs).fill(versionedHash),
      sidecars: Array(blobs).fill({ blob, commitment, proof: commitment }),
    });
    await edr.provider.request({ method: 'eth_sendRawTransaction', params: [raw] });
  }

  it("serves the node's blob base fee as blocks fill with blobs (nine a block, above the target of six)", async () => {
    const seen = new Set<bigint>();
    for (let nonce = 0; nonce < 12; nonce += 1) {
      await sendBlobs(nonce, 9);
      const header = (await edr.provider.request({
        method: 'eth_getBlockByNumber',
        params: ['latest', false],
      })) as { blobGasUsed: string; excessBlobGas: string };
      expect(BigInt(header.blobGasUsed)).toBe(9n * 131_072n);
      const deps = createTestDeps({ MAINNET_RPC_URLS: edr.url, ETHERSCAN_API_URL: await closedPortUrl() });
      const gas = (await (await createApp(deps).request('/api/gas')).json()) as Gas;
      const nodeFee = BigInt((await edr.provider.request({ method: 'eth_blobBaseFee' })) as string);
      // EDR's eth_blobBaseFee is the head block's fee (as geth's): fake_exponential of its own excess,
      // which grows by the three blobs over target each block.
      expect(BigInt(header.excessBlobGas)).toBe(BigInt(nonce) * 3n * 131_072n);
      expect(nodeFee).toBe(computeBlobBaseFee(BigInt(header.excessBlobGas), PRAGUE.updateFraction));
      expect(parseGwei(gas.blobBaseFee!.toFixed(9))).toBe(nodeFee);
      seen.add(nodeFee);
    }
    // Twelve blocks three blobs over target lift the fee off its 1-wei floor.
    expect([...seen].some((fee) => fee > 1n)).toBe(true);
  });
});
