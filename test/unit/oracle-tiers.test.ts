import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { computeNextBaseFee, type FeeHistory, OracleError } from '../../lib/oracle/fee-history';
import { MAX_SANE_GWEI } from '../../lib/oracle/sanity';
import { computeMedian, computePercentileFees, computeTiers } from '../../lib/oracle/tiers';

// Real eth_feeHistory answers (wagmi snapshots of an Anvil mainnet fork, blocks 18677346-18677381);
// see ../shared/data/SOURCES.md. They were asked with percentiles [25, 75].
const samplesFile = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../shared/data/mainnet_eth_feeHistory_samples_blocks_18677346-18677381.json',
);
interface HexSample {
  oldestBlock: string;
  baseFeePerGas: string[];
  gasUsedRatio: number[];
  reward: string[][];
}
const samples = (
  JSON.parse(readFileSync(samplesFile, 'utf8')) as { samples: { result_rpc_hex: HexSample }[] }
).samples;

function decode(hex: HexSample): FeeHistory {
  return {
    oldestBlock: BigInt(hex.oldestBlock),
    baseFeePerGas: hex.baseFeePerGas.map(BigInt),
    gasUsedRatio: hex.gasUsedRatio,
    reward: hex.reward.map((row) => row.map(BigInt)),
  };
}

function sample(index: number): FeeHistory {
  const entry = samples[index];
  if (!entry) throw new Error(`no sample ${index}`);
  return decode(entry.result_rpc_hex);
}

describe('computePercentileFees on real mainnet fee histories', () => {
  // Hand-computed: next base fee (last baseFeePerGas entry) + median of each reward column.
  it('adds the median 25th / 75th percentile tip to the next base fee (latest sample)', () => {
    // col 25: 0.05, 0.1, 0.1, 0.1 gwei -> median 0.1; col 75: 0.345, 1, 2, 3.005 -> (1 + 2) / 2 = 1.5
    expect(computePercentileFees(sample(0), 2)).toEqual([
      30_763_616_579n + 100_000_000n,
      30_763_616_579n + 1_500_000_000n,
    ]);
  });

  it('averages the two middle tips of an even block count (block 18677379 sample)', () => {
    // col 25 sorted: 50000000, 90000000, 90574478, 100000000 -> (90000000 + 90574478) / 2 = 90287239
    // col 75 sorted: 345000000, 1013009054, 3000000000, 3005000000 -> 2006504527
    expect(computePercentileFees(sample(1), 2)).toEqual([
      32_174_375_541n + 90_287_239n,
      32_174_375_541n + 2_006_504_527n,
    ]);
  });

  it('computes the safe-tag sample', () => {
    // col 25: 0.05, 0.05, 0.1, 0.1 -> 0.075; col 75: 0.3, 1.5, 1.5, 2.001 -> 1.5
    expect(computePercentileFees(sample(2), 2)).toEqual([
      32_967_176_466n + 75_000_000n,
      32_967_176_466n + 1_500_000_000n,
    ]);
  });

  it('rejects the samples when asked for three percentiles (rows have two)', () => {
    expect(() => computeTiers(sample(0))).toThrow(OracleError);
  });
});

describe('computeTiers', () => {
  // Real blocks 17173049-17173050 (ethereum-etl): per-block 70/90/99 reward percentiles of the 298 real
  // transactions (equal weights), next base fee from block 17173050's gas used; computed independently
  // in Python from the CSV: block 049 -> 2.79 / 14.656609773 / 50 gwei, block 050 -> 3 / 19.828512659 / 50.
  const realBlocks: FeeHistory = {
    oldestBlock: 17_173_049n,
    baseFeePerGas: [80_869_370_967n, 77_334_732_501n, 77_651_468_498n],
    gasUsedRatio: [9_755_040 / 30_000_000, 15_491_478 / 30_000_000],
    reward: [
      [2_790_000_000n, 14_656_609_773n, 50_000_000_000n],
      [3_000_000_000n, 19_828_512_659n, 50_000_000_000n],
    ],
  };

  it('serves next base fee + median tip in gwei, exact to the wei (real blocks)', () => {
    // low 77.651468498 + 2.895 ; average + 17.242561216 ; high + 50
    expect(computeTiers(realBlocks)).toEqual({
      low: 80.546468498,
      average: 94.894029714,
      high: 127.651468498,
      baseFee: 77.651468498,
    });
  });

  it('keeps sub-gwei precision', () => {
    const history: FeeHistory = {
      oldestBlock: 100n,
      baseFeePerGas: [52_000_000n, 52_345_678n],
      gasUsedRatio: [0.4],
      reward: [[1_000_000n, 20_000_000n, 1_500_000_000n]],
    };
    // 0.052345678 + 0.001 ; + 0.02 ; + 1.5, every wei kept
    expect(computeTiers(history)).toEqual({
      low: 0.053345678,
      average: 0.072345678,
      high: 1.552345678,
      baseFee: 0.052345678,
    });
  });

  it('leaves empty blocks out of the median', () => {
    const history: FeeHistory = {
      oldestBlock: 1n,
      baseFeePerGas: [1_000_000_000n, 1_000_000_000n, 1_000_000_000n, 1_000_000_000n, 1_000_000_000n],
      gasUsedRatio: [0, 0.5, 0, 0.5],
      reward: [
        [0n, 0n, 0n],
        [2_000_000_000n, 3_000_000_000n, 4_000_000_000n],
        [0n, 0n, 0n],
        [2_000_000_000n, 3_000_000_000n, 4_000_000_000n],
      ],
    };
    expect(computeTiers(history)).toEqual({ low: 3, average: 4, high: 5, baseFee: 1 });
  });

  it('serves the base fee alone when every block is empty', () => {
    const history: FeeHistory = {
      oldestBlock: 1n,
      baseFeePerGas: [8n * 10n ** 9n, 7n * 10n ** 9n],
      gasUsedRatio: [0],
      reward: [[0n, 0n, 0n]],
    };
    expect(computeTiers(history)).toEqual({ low: 7, average: 7, high: 7, baseFee: 7 });
  });

  it('ignores one block with a huge tip (median, not mean)', () => {
    const rows = [1n, 1n, 1n, 1n, 1_000_000n].map((g) => [
      g * 10n ** 9n,
      g * 2n * 10n ** 9n,
      g * 3n * 10n ** 9n,
    ]);
    const history: FeeHistory = {
      oldestBlock: 1n,
      baseFeePerGas: Array(6).fill(10n ** 9n),
      gasUsedRatio: Array(5).fill(0.5),
      reward: rows,
    };
    expect(computeTiers(history)).toEqual({ low: 2, average: 3, high: 4, baseFee: 1 });
  });

  it('accepts the rise after an exactly full block under an odd gas limit, a few wei above 1/8, and no more', () => {
    // Validators moving the limit leave it odd (2T + 1); a full block then uses T + 1 above target.
    const newest = 10n ** 9n;
    const history = (nextFee: bigint): FeeHistory => ({
      oldestBlock: 5n,
      baseFeePerGas: [newest, nextFee],
      gasUsedRatio: [1],
      reward: [[1n, 2n, 3n]],
    });
    for (const limit of [30_000_001n, 36_000_001n, 45_000_001n, 60_000_001n]) {
      const next = computeNextBaseFee(newest, limit, limit);
      expect(next).toBeGreaterThan(newest + newest / 8n);
      expect(computeTiers(history(next)).baseFee).toBe(Number(next) / 1e9);
    }
    // One wei above what the smallest odd-limit target since London allows is still refused.
    const ceiling = computeNextBaseFee(newest, 30_000_001n, 30_000_001n);
    expect(() => computeTiers(history(ceiling + 1n))).toThrow(OracleError);
  });

  it.each([
    [
      'a tier above the sanity ceiling',
      { reward: [[BigInt(MAX_SANE_GWEI) * 10n ** 9n, 2n * 10n ** 13n, 3n * 10n ** 13n]] },
    ],
    ['a next base fee that breaks the EIP-1559 bound', { baseFeePerGas: [10n ** 9n, 2n * 10n ** 9n] }],
    ['a zero base fee', { baseFeePerGas: [0n, 0n] }],
    ['rewards not ascending in a block', { reward: [[3n, 2n, 1n]] }],
    ['a gas used ratio above 1', { gasUsedRatio: [1.5] }],
    ['mismatched lengths', { baseFeePerGas: [10n ** 9n] }],
    ['a missing reward field', { reward: undefined as unknown as bigint[][] }],
  ])('rejects %s', (_, patch) => {
    const history: FeeHistory = {
      oldestBlock: 5n,
      baseFeePerGas: [10n ** 9n, 10n ** 9n],
      gasUsedRatio: [0.5],
      reward: [[1n, 2n, 3n]],
      ...patch,
    };
    expect(() => computeTiers(history)).toThrow(OracleError);
  });
});

describe('computeMedian', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(computeMedian([5n, 1n, 3n])).toBe(3n);
    expect(computeMedian([4n, 1n, 3n, 10n])).toBe(3n);
    expect(computeMedian([])).toBe(0n);
  });
});
