import {
  createPublicClient,
  decodeFunctionResult,
  encodeFunctionData,
  formatEther,
  formatGwei,
  http,
  parseAbi,
  parseEther,
  parseGwei,
} from 'viem';
import { optimism } from 'viem/chains';
import { estimateL1Fee } from 'viem/op-stack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getL2Network, type L2Network } from '../../lib/l2/networks';
import { computeOperatorFeeWei } from '../../lib/l2/operator-fee';
import { presentNetwork } from '../../lib/l2/present';
import { readL2Network } from '../../lib/upstream/l2-gas-price';
import { readL1FeeWei, serializeRepresentativeTransfer } from '../../lib/upstream/op-l1-fee';
import { createTestDeps } from '../helpers/deps';
import { type EdrNode, startEdrNode } from './helpers/edr-node';
import { L1_BLOCK_ADDRESS, setL1OracleState, setOperatorFeeParams } from './helpers/edr-op-oracle';

// Hardhat 3's EDR with chainType 'op' runs the real OP Stack predeploys, the GasPriceOracle among them.
const CHAIN_ID = 31337;
const ORACLE = '0x420000000000000000000000000000000000000F';
const oracleAbi = parseAbi([
  'function getL1Fee(bytes _data) view returns (uint256)',
  'function getOperatorFee(uint256 _gasUsed) view returns (uint256)',
  'function isIsthmus() view returns (bool)',
]);
const l1BlockAbi = parseAbi([
  'function operatorFeeScalar() view returns (uint32)',
  'function operatorFeeConstant() view returns (uint64)',
]);
/** An operator fee set as an operator would: scalar 1,234,567 (1.234567 wei a gas), constant 1 gwei + 7. */
const OPERATOR_FEE = { scalar: 1_234_567n, constant: 1_000_000_007n };

/** OP Mainnet's post-Ecotone scalars with a busy L1: 12 gwei base fee, 3 gwei blob base fee. */
const BUSY_L1 = {
  l1BaseFee: parseGwei('12'),
  blobBaseFee: parseGwei('3'),
  baseFeeScalar: 5227,
  blobBaseFeeScalar: 1_014_213,
};

let node: EdrNode;
let network: L2Network;

/** The contract's own answer for `bytes`, asked directly of the EIP-1193 provider (no project code). */
async function contractL1Fee(bytes: `0x${string}`): Promise<bigint> {
  const data = encodeFunctionData({ abi: oracleAbi, functionName: 'getL1Fee', args: [bytes] });
  const result = (await node.provider.request({
    method: 'eth_call',
    params: [{ to: ORACLE, data }, 'latest'],
  })) as `0x${string}`;
  return decodeFunctionResult({ abi: oracleAbi, functionName: 'getL1Fee', data: result });
}

/** The contract's own getOperatorFee(gas), asked directly of the EIP-1193 provider. */
async function contractOperatorFee(gas: bigint): Promise<bigint> {
  const data = encodeFunctionData({ abi: oracleAbi, functionName: 'getOperatorFee', args: [gas] });
  const result = (await node.provider.request({
    method: 'eth_call',
    params: [{ to: ORACLE, data }, 'latest'],
  })) as `0x${string}`;
  return decodeFunctionResult({ abi: oracleAbi, functionName: 'getOperatorFee', data: result });
}

/** One of L1Block's operator fee getters, asked directly of the EIP-1193 provider. */
async function l1BlockGetter(functionName: 'operatorFeeScalar' | 'operatorFeeConstant') {
  const result = (await node.provider.request({
    method: 'eth_call',
    params: [{ to: L1_BLOCK_ADDRESS, data: encodeFunctionData({ abi: l1BlockAbi, functionName }) }],
  })) as `0x${string}`;
  return decodeFunctionResult({ abi: l1BlockAbi, functionName, data: result });
}

function depsFor(urls: string[]) {
  return createTestDeps({ OPTIMISM_RPC_URLS: urls.join(','), UPSTREAM_TIMEOUT_MS: '5000' });
}

beforeAll(async () => {
  node = await startEdrNode('op', { chainId: CHAIN_ID });
  await setL1OracleState(node.provider, BUSY_L1);
  // The expected chain id is injected: EDR runs as chain 31337, not OP Mainnet's 10.
  network = { ...getL2Network('optimism'), chainId: CHAIN_ID };
});

afterAll(async () => {
  await node?.close();
});

describe('OP Stack L1 data fee against a real GasPriceOracle (Hardhat EDR, chainType op)', () => {
  it("reads the same fee as the contract's own getL1Fee for the same bytes", async () => {
    const bytes = serializeRepresentativeTransfer(CHAIN_ID);
    const expected = await contractL1Fee(bytes);
    expect(expected).toBeGreaterThan(0n);
    const call = async (method: string, params: unknown[]) => {
      const response = await fetch(node.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const body = (await response.json()) as { result?: unknown };
      return body.result;
    };
    expect(await readL1FeeWei(call, CHAIN_ID)).toBe(expected);
  });

  it("agrees with viem's estimateL1Fee for the same transfer", async () => {
    const client = createPublicClient({ chain: { ...optimism, id: CHAIN_ID }, transport: http(node.url) });
    const viemFee = await estimateL1Fee(client, {
      account: '0x0000000000000000000000000000000000000001',
      to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      value: parseEther('0.1'),
      gasPriceOracleAddress: ORACLE,
    });
    expect(await contractL1Fee(serializeRepresentativeTransfer(CHAIN_ID))).toBe(viemFee);
  });

  it('follows the oracle when the L1 price moves', async () => {
    const bytes = serializeRepresentativeTransfer(CHAIN_ID);
    const before = await contractL1Fee(bytes);
    await setL1OracleState(node.provider, { ...BUSY_L1, l1BaseFee: BUSY_L1.l1BaseFee * 2n });
    try {
      const after = (await readL2Network(depsFor([node.url]), network)).l1FeeWei;
      expect(after).toBe(await contractL1Fee(bytes));
      expect(after).toBeGreaterThan(before);
    } finally {
      await setL1OracleState(node.provider, BUSY_L1);
    }
  });

  it('reads the gas price, the L1 fee and the operator fee through the provider pool in one attempt', async () => {
    node.requests.clear();
    node.httpRequests.length = 0;
    const reading = await readL2Network(depsFor([node.url]), network);
    const gasPrice = BigInt((await node.provider.request({ method: 'eth_gasPrice' })) as string);
    expect(reading.gasPriceWei).toBe(gasPrice);
    expect(reading.l1FeeWei).toBe(await contractL1Fee(serializeRepresentativeTransfer(CHAIN_ID)));
    // EDR's genesis sets no operator fee: the Isthmus oracle answers 0, a valid value.
    expect(reading.operatorFee).toEqual({ transferFeeWei: 0n, params: { scalar: 0n, constant: 0n } });
    expect(reading.l1FeeFailure).toBeUndefined();
    expect(reading.operatorFeeFailure).toBeUndefined();
    expect(reading.provider).toBe('rpc-1');
    expect(node.requests.get('eth_chainId')).toBe(1);
    // Beside the gas-price batch, each oracle read is a request of its own (a provider's batch limit
    // cannot cost the L1 fee): getL1Fee, getOperatorFee and L1Block's operator fee slot.
    expect(node.requests.get('eth_call')).toBe(2);
    expect(node.requests.get('eth_getStorageAt')).toBe(1);
    const singles = node.httpRequests.filter((methods) => !methods.includes('eth_gasPrice'));
    expect(singles.sort()).toEqual([['eth_call'], ['eth_call'], ['eth_getStorageAt']]);
    expect(node.httpRequests).toHaveLength(4);
  });

  it("reads the real oracle's operator fee to the wei, and prices any gas as its getOperatorFee does", async () => {
    expect(
      decodeFunctionResult({
        abi: oracleAbi,
        functionName: 'isIsthmus',
        data: (await node.provider.request({
          method: 'eth_call',
          params: [{ to: ORACLE, data: encodeFunctionData({ abi: oracleAbi, functionName: 'isIsthmus' }) }],
        })) as `0x${string}`,
      }),
    ).toBe(true);
    await setOperatorFeeParams(node.provider, OPERATOR_FEE);
    try {
      const reading = await readL2Network(depsFor([node.url]), network);
      // 21,000 x 1,234,567 / 1e6 = 25,925 (rounded down) + 1,000,000,007.
      expect(await contractOperatorFee(21_000n)).toBe(1_000_025_932n);
      expect(reading.operatorFee).toEqual({ transferFeeWei: 1_000_025_932n, params: OPERATOR_FEE });
      // The parameters read from L1Block's slot 8 are the ones its own getters answer.
      expect(await l1BlockGetter('operatorFeeScalar')).toBe(Number(OPERATOR_FEE.scalar));
      expect(await l1BlockGetter('operatorFeeConstant')).toBe(OPERATOR_FEE.constant);
      const operatorFee = reading.operatorFee!;
      for (const gas of [1n, 810n, 21_001n, 100_000n, 1_234_567n, 30_000_000n]) {
        expect(computeOperatorFeeWei(gas, operatorFee), `${gas} gas`).toBe(await contractOperatorFee(gas));
      }
    } finally {
      await setOperatorFeeParams(node.provider, { scalar: 0n, constant: 0n });
    }
  });

  it("suggests the OP Stack node's own tip and its latest base fee, with max fee 2 x base + tip", async () => {
    const reading = await readL2Network(depsFor([node.url]), network);
    const tip = BigInt((await node.provider.request({ method: 'eth_maxPriorityFeePerGas' })) as string);
    const latest = (await node.provider.request({
      method: 'eth_getBlockByNumber',
      params: ['latest', false],
    })) as {
      baseFeePerGas: string;
    };
    expect(reading.suggestedTipWei).toBe(tip);
    expect(reading.baseFeeWei).toBe(BigInt(latest.baseFeePerGas));
    expect(reading.l1GasUnits).toBeNull();
    const served = presentNetwork(
      network,
      { status: 'live', ...reading },
      { ETH: 3000, POL: 0.25 },
      reading.readAt,
    );
    expect(served.reading.maxPriorityFeePerGas).toBe(Number(formatGwei(tip)));
    expect(served.reading.maxFeePerGas).toBe(Number(formatGwei(2n * BigInt(latest.baseFeePerGas) + tip)));
  });

  it('refuses the node when it is not the chain the network expects', async () => {
    const deps = depsFor([node.url]);
    await expect(readL2Network(deps, getL2Network('optimism'))).rejects.toMatchObject({
      name: 'RpcPoolError',
      failures: [expect.objectContaining({ kind: 'wrong-chain' })],
    });
  });

  it.each([
    ['a busy L1', BUSY_L1],
    ['an L1 fee spike', { ...BUSY_L1, l1BaseFee: parseGwei('400'), blobBaseFee: parseGwei('150') }],
  ])('converts the fees to USD right to the cent with %s and an operator fee', async (_label, state) => {
    await setL1OracleState(node.provider, state);
    await setOperatorFeeParams(node.provider, OPERATOR_FEE);
    const [reading, contractFee, contractOpFee] = await Promise.all([
      readL2Network(depsFor([node.url]), network),
      contractL1Fee(serializeRepresentativeTransfer(CHAIN_ID)),
      contractOperatorFee(21_000n),
    ]).finally(async () => {
      await setL1OracleState(node.provider, BUSY_L1);
      await setOperatorFeeParams(node.provider, { scalar: 0n, constant: 0n });
    });
    const ethUsd = 3187.42;
    const served = presentNetwork(
      network,
      {
        status: 'live',
        gasPriceWei: reading.gasPriceWei,
        l1FeeWei: reading.l1FeeWei,
        operatorFee: reading.operatorFee,
        readAt: reading.readAt,
        baseFeeWei: reading.baseFeeWei,
        suggestedTipWei: reading.suggestedTipWei,
        l1GasUnits: reading.l1GasUnits,
        l1GasBaseFeeWei: reading.l1GasBaseFeeWei,
      },
      { ETH: ethUsd, POL: null },
      reading.readAt,
    ).reading;
    const l1Usd = Number(formatEther(contractFee)) * ethUsd;
    const operatorUsd = Number(formatEther(contractOpFee)) * ethUsd;
    const executionUsd = Number(formatEther(21_000n * reading.gasPriceWei)) * ethUsd;
    const expectRight = (served: number | null, exact: number) => {
      expect(served).not.toBeNull();
      // To the cent, and sub-cent fees to 4 significant digits (rounding error at most 0.05 %).
      expect(Math.abs((served ?? 0) - exact)).toBeLessThan(0.005);
      expect(Math.abs((served ?? 0) - exact) / exact).toBeLessThanOrEqual(0.0005);
    };
    expectRight(served.estimatedL1DataFeeUsd, l1Usd);
    expectRight(served.executionGasCostUsd, executionUsd);
    expectRight(served.estimatedOperatorFeeUsd, operatorUsd);
    // SPEC 2.10: the wallet fee is execution + L1 data fee; the operator fee is paid on top of it.
    expectRight(served.estimatedWalletFeeUsd, executionUsd + l1Usd);
    expect(served.feeCompleteness).toBe('full_estimate');
  });
});
