import { createPublicClient, formatGwei, http, parseAbi, parseGwei, serializeTransaction, toHex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GAS_PRICE_ORACLE, L2_NAMES, startUpstreams, type Upstreams } from '../upstreams';

const oracleAbi = parseAbi([
  'function getL1Fee(bytes) view returns (uint256)',
  'function l1BaseFee() view returns (uint256)',
  'function isFjord() view returns (bool)',
  'function isEcotone() view returns (bool)',
]);

// A signed EIP-1559 ETH transfer as the L2 code serializes it (dummy signature of the right size).
const transfer = (chainId: number, data: `0x${string}` = '0x') =>
  serializeTransaction(
    {
      chainId,
      type: 'eip1559',
      to: '0x000000000000000000000000000000000000dEaD',
      value: 10n ** 15n,
      nonce: 7,
      gas: 21_000n,
      maxFeePerGas: parseGwei('0.01'),
      maxPriorityFeePerGas: parseGwei('0.001'),
      data,
    },
    { r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, yParity: 1 },
  );

let up: Upstreams;
const client = (url: string, batch = false) =>
  createPublicClient({ transport: http(url, { batch, retryCount: 0 }) });

beforeAll(async () => {
  up = await startUpstreams();
});
afterEach(() => up.reset());
afterAll(() => up.close());

describe('JSON-RPC simulators: default answers', () => {
  it('serves every chain id and a live head on each provider', async () => {
    const expected = { arbitrum: 42161, optimism: 10, base: 8453, polygon: 137 };
    for (const sim of up.mainnet) expect(await client(sim.url).getChainId()).toBe(1);
    for (const name of L2_NAMES) {
      for (const sim of up.l2[name]) {
        const c = client(sim.url);
        expect(await c.getChainId()).toBe(expected[name]);
        const block = await c.getBlock();
        expect(Number(block.timestamp)).toBeGreaterThan(Date.now() / 1000 - 13);
      }
    }
    const heads = await Promise.all(up.mainnet.map((sim) => client(sim.url).getBlockNumber()));
    expect(Math.max(...heads.map(Number)) - Math.min(...heads.map(Number))).toBeLessThanOrEqual(1);
  });

  it('answers eth_feeHistory from the real blocks, with the next base fee as the extra entry', async () => {
    const c = client(up.mainnet[0]!.url);
    const history = await c.getFeeHistory({ blockCount: 20, rewardPercentiles: [10, 70, 90, 99] });
    const head = await c.getBlockNumber();
    expect(history.baseFeePerGas).toHaveLength(21);
    expect(history.gasUsedRatio).toHaveLength(20);
    expect(history.reward).toHaveLength(20);
    expect(Number(history.oldestBlock)).toBeGreaterThanOrEqual(Number(head) - 20);
    // Base fees of real blocks 18677346-18677381 (wagmi snapshots), e.g. 31624032653 wei.
    expect(history.baseFeePerGas).toContain(31_624_032_653n);
    history.gasUsedRatio.forEach((ratio, i) => {
      // Every step follows EIP-1559 from the block's gas-used ratio.
      const base = Number(history.baseFeePerGas[i]);
      const expectedNext = base * (1 + (ratio - 0.5) / 4);
      expect(Math.abs(Number(history.baseFeePerGas[i + 1]) - expectedNext) / base).toBeLessThan(1e-6);
    });
    for (const row of history.reward ?? []) {
      expect(row[0]).toBe(100_000_000n); // the 0.1 gwei floor tip of the real blocks
      expect([...row].sort((a, b) => (a < b ? -1 : 1))).toEqual(row);
      expect(row[3]! > parseGwei('10')).toBe(true);
    }
    const raw = (await c.request({ method: 'eth_feeHistory', params: ['0x2', 'latest', []] })) as Record<
      string,
      unknown[]
    >;
    expect(raw).not.toHaveProperty('reward');
    expect(raw.baseFeePerBlobGas).toHaveLength(3);
    expect(raw.blobGasUsedRatio).toHaveLength(2);
  });

  it('serves up to 1024 blocks ending at any past block and refuses blocks beyond the head', async () => {
    const c = client(up.mainnet[1]!.url);
    const head = await c.getBlockNumber();
    const wide = await c.getFeeHistory({ blockCount: 4000, rewardPercentiles: [50], blockNumber: head - 5n });
    expect(wide.gasUsedRatio).toHaveLength(1024);
    expect(wide.oldestBlock).toBe(head - 5n - 1023n);
    await expect(
      c.getFeeHistory({ blockCount: 2, rewardPercentiles: [], blockNumber: head + 100n }),
    ).rejects.toThrow(/beyond head/);
  });

  it('derives gas price and priority fee like geth, and lets a test set every answer', async () => {
    const sim = up.mainnet[0]!;
    const c = client(sim.url);
    const [gasPrice, tip, history] = await Promise.all([
      c.getGasPrice(),
      c.estimateMaxPriorityFeePerGas(),
      c.getFeeHistory({ blockCount: 1, rewardPercentiles: [] }),
    ]);
    expect(gasPrice).toBe(history.baseFeePerGas[1]! + tip);

    sim.setGasPrice(123n);
    sim.setHead({ number: 19_000_000, timestamp: 1_700_000_000 });
    sim.setTips([parseGwei('1'), parseGwei('2'), parseGwei('3'), parseGwei('4')]);
    sim.setBaseFees([parseGwei('0.5')]);
    expect(await c.getGasPrice()).toBe(123n);
    const block = await c.getBlock();
    expect([block.number, block.timestamp, block.baseFeePerGas]).toEqual([
      19_000_000n,
      1_700_000_000n,
      parseGwei('0.5'),
    ]);
    const set = await c.getFeeHistory({ blockCount: 3, rewardPercentiles: [25, 50, 100] });
    expect(set.reward?.[0]).toEqual([parseGwei('1'), parseGwei('2'), parseGwei('4')]);
    expect(set.gasUsedRatio).toEqual([0.5, 0.5, 0.5]);

    sim.setFeeHistory({ baseFeePerGas: [1n, 2n, 3n], gasUsedRatio: [0.1, 0.9], reward: [[5n], [6n]] });
    const fixed = await c.getFeeHistory({ blockCount: 2, rewardPercentiles: [50] });
    expect(fixed).toMatchObject({
      oldestBlock: 18_999_999n,
      baseFeePerGas: [1n, 2n, 3n],
      reward: [[5n], [6n]],
    });

    // Derived again once reset (not compared with the first gas price: the simulated head moves on
    // with the clock, so a block may have passed since).
    await up.reset();
    const [again, tipAgain, historyAgain] = await Promise.all([
      c.getGasPrice(),
      c.estimateMaxPriorityFeePerGas(),
      c.getFeeHistory({ blockCount: 1, rewardPercentiles: [] }),
    ]);
    expect(again).toBe(historyAgain.baseFeePerGas[1]! + tipAgain);
  });

  it('advances the head 12 s per block with the clock it is given', async () => {
    let clock = Date.UTC(2025, 10, 20, 12, 0, 0);
    const timed = await startUpstreams({ now: () => clock });
    try {
      const c = client(timed.mainnet[0]!.url);
      const first = await c.getBlock();
      clock += 60_000;
      const later = await c.getBlock();
      expect(later.number - first.number).toBe(5n);
      expect(later.timestamp - first.timestamp).toBe(60n);
      expect(Number(later.timestamp)).toBeLessThanOrEqual(clock / 1000);
      expect(Number(later.timestamp)).toBeGreaterThan(clock / 1000 - 12);
    } finally {
      await timed.close();
    }
  });

  it('computes a Fjord-style L1 fee on Optimism and Base from the transaction bytes', async () => {
    for (const name of ['optimism', 'base'] as const) {
      const sim = up.l2[name][0]!;
      const c = client(sim.url);
      const read = (args: readonly [`0x${string}`]) =>
        c.readContract({ address: GAS_PRICE_ORACLE, abi: oracleAbi, functionName: 'getL1Fee', args });
      const small = await read([transfer(sim.chainId)]);
      const large = await read([transfer(sim.chainId, `0x${'ab'.repeat(400)}`)]);
      // A transfer costs a few gwei of L1 data at a ~1 gwei L1 base fee: far below a cent.
      expect(small > 10n ** 8n && small < 10n ** 12n).toBe(true);
      expect(large > small).toBe(true);
      expect(
        await c.readContract({ address: GAS_PRICE_ORACLE, abi: oracleAbi, functionName: 'isFjord' }),
      ).toBe(true);
      expect(
        await c.readContract({ address: GAS_PRICE_ORACLE, abi: oracleAbi, functionName: 'isEcotone' }),
      ).toBe(true);
      sim.setL1BaseFee(parseGwei('2'));
      expect(await read([transfer(sim.chainId)])).toBeGreaterThan(small);
      sim.setL1Fee(777n);
      expect(await read([transfer(sim.chainId)])).toBe(777n);
    }
    // Arbitrum has no such predeploy: the call returns no data.
    const arb = client(up.l2.arbitrum[0]!.url);
    expect(await arb.call({ to: GAS_PRICE_ORACLE, data: '0x519b4bd3' })).toEqual({ data: undefined });
  });

  it("answers getOperatorFee and L1Block's operator fee parameters per fork, ABI-encoded", async () => {
    const abi = parseAbi([
      'function getOperatorFee(uint256 _gasUsed) view returns (uint256)',
      'function operatorFeeScalar() view returns (uint32)',
      'function operatorFeeConstant() view returns (uint64)',
    ]);
    const L1_BLOCK = '0x4200000000000000000000000000000000000015';
    const sim = up.l2.base[0]!;
    const c = client(sim.url);
    const fee = (gas: bigint) =>
      c.readContract({ address: GAS_PRICE_ORACLE, abi, functionName: 'getOperatorFee', args: [gas] });
    // By default no operator fee is set: 0 at any gas.
    expect(await fee(21_000n)).toBe(0n);
    sim.setOperatorFee({ fork: 'jovian', scalar: 7, constant: 1_000n });
    expect(await fee(21_000n)).toBe(21_000n * 7n * 100n + 1_000n);
    expect(await c.readContract({ address: L1_BLOCK, abi, functionName: 'operatorFeeScalar' })).toBe(7);
    expect(await c.readContract({ address: L1_BLOCK, abi, functionName: 'operatorFeeConstant' })).toBe(
      1_000n,
    );
    sim.setOperatorFee({ fork: 'isthmus', scalar: 1_234_567, constant: 5n });
    expect(await fee(100_001n)).toBe((100_001n * 1_234_567n) / 1_000_000n + 5n);
    // Before Isthmus the oracle has no getOperatorFee and L1Block no parameters: both revert.
    sim.setOperatorFee({ fork: 'pre-isthmus', scalar: 0, constant: 0n });
    await expect(fee(21_000n)).rejects.toThrow(/reverted/);
    await expect(
      c.readContract({ address: L1_BLOCK, abi, functionName: 'operatorFeeScalar' }),
    ).rejects.toThrow(/reverted/);
  });

  it("answers eth_getStorageAt on L1Block's operator fee slot (8) with the packed parameters per fork", async () => {
    const L1_BLOCK = '0x4200000000000000000000000000000000000015';
    const sim = up.l2.optimism[0]!;
    const slot = (index: bigint) => client(sim.url).getStorageAt({ address: L1_BLOCK, slot: toHex(index) });
    // By default (Jovian) no operator fee is set: only the daFootprintGasScalar (default 400), above them.
    expect(await slot(8n)).toBe(toHex(400n << 96n, { size: 32 }));
    sim.setOperatorFee({ fork: 'isthmus', scalar: 1_234_567, constant: 1_000_000_007n });
    // operatorFeeConstant in bits 0-63, operatorFeeScalar in 64-95.
    expect(await slot(8n)).toBe(toHex((1_234_567n << 64n) | 1_000_000_007n, { size: 32 }));
    sim.setOperatorFee({ fork: 'jovian', scalar: 3, constant: 2_500_000_000n });
    expect(await slot(8n)).toBe(toHex((400n << 96n) | (3n << 64n) | 2_500_000_000n, { size: 32 }));
    expect(await slot(7n)).toBe(toHex(0n, { size: 32 }));
  });

  it('serves realistic L2 gas prices', async () => {
    const gwei = async (name: (typeof L2_NAMES)[number]) =>
      Number(formatGwei(await client(up.l2[name][1]!.url).getGasPrice()));
    expect(await gwei('arbitrum')).toBe(0.01);
    expect(await gwei('optimism')).toBeCloseTo(0.00125, 6);
    expect(await gwei('base')).toBe(0.006);
    expect(await gwei('polygon')).toBe(30);
  });

  it('answers batches, counts each method and rejects unknown methods with -32601', async () => {
    const sim = up.mainnet[2]!;
    const c = client(sim.url, true);
    await Promise.all([c.getChainId(), c.getBlockNumber(), c.getGasPrice()]);
    expect(sim.requests.total).toBe(1);
    expect(sim.requests.byMethod).toEqual({ eth_chainId: 1, eth_blockNumber: 1, eth_gasPrice: 1 });
    await expect(c.request({ method: 'eth_mining' as never })).rejects.toMatchObject({ code: -32601 });
    const res = await fetch(sim.url, { method: 'POST', body: '[]' });
    expect(await res.json()).toMatchObject({ error: { code: -32600 } });
    const wrongKey = await fetch(`${sim.origin}/v3/not-the-key`, { method: 'POST', body: '{}' });
    expect(wrongKey.status).toBe(401);
  });
});
