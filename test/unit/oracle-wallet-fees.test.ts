import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { computeNextBaseFee, type FeeHistory, OracleError } from '../../lib/oracle/fee-history';
import {
  computeBaseFeeAfterFullBlocks,
  computeMaxFeePerGas,
  TIER_HEADROOM_BLOCKS,
  TIER_NAMES,
} from '../../lib/oracle/max-fee';
import { estimateInclusionProbability, estimateWait, estimateWaitSeconds } from '../../lib/oracle/wait-model';
import { classifyTrend, computeWalletFees, trendFromGasUsed } from '../../lib/oracle/wallet-fees';
import { createRandom } from '../helpers/random';

const GWEI = 1_000_000_000n;
const DATA = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/data');

/** Real per-block base fees (July 2022, every block; ../shared/data/SOURCES.md section A). */
function loadPerBlockBaseFees(): bigint[] {
  const [, ...rows] = readFileSync(
    resolve(DATA, 'mainnet_basefee_perblock_2022-07-01_2022-07-02.csv'),
    'utf8',
  )
    .trim()
    .split('\n');
  return rows.map((row) => BigInt(row.split(',')[1] ?? '0'));
}

// Real blocks 17173049-17173050 (ethereum-etl, MIT): 1st / 70th / 90th / 99th percentile tips.
const REAL: FeeHistory = {
  oldestBlock: 17_173_049n,
  baseFeePerGas: [80_869_370_967n, 77_334_732_501n, 77_651_468_498n],
  gasUsedRatio: [9_755_040 / 30_000_000, 15_491_478 / 30_000_000],
  reward: [
    [100_000_000n, 2_790_000_000n, 14_656_609_773n, 50_000_000_000n],
    [0n, 3_000_000_000n, 19_828_512_659n, 50_000_000_000n],
  ],
};

function randomHistory(next: () => number): FeeHistory {
  const blocks = 1 + Math.floor(next() * 30);
  let base = BigInt(1 + Math.floor(next() * 200_000_000_000));
  const baseFeePerGas: bigint[] = [];
  const gasUsedRatio: number[] = [];
  const reward: bigint[][] = [];
  for (let i = 0; i < blocks; i += 1) {
    baseFeePerGas.push(base);
    const ratio = next() < 0.1 ? 0 : next();
    gasUsedRatio.push(ratio);
    const row = [0, 0, 0, 0]
      .map(() => BigInt(Math.floor(next() * next() * 30e9)))
      .sort((a, b) => (a < b ? -1 : 1));
    reward.push(ratio === 0 ? [0n, 0n, 0n, 0n] : row);
    base = computeNextBaseFee(base, BigInt(Math.round(ratio * 30e6)), 30_000_000n);
  }
  baseFeePerGas.push(base);
  return { oldestBlock: 1000n, baseFeePerGas, gasUsedRatio, reward };
}

describe('max fee headroom', () => {
  it('raises the base fee as EIP-1559 does over full blocks, at the worst gas limit since London', () => {
    for (const start of [1n, 7n, 8n, 9n, 52_350_000n, 77_651_468_498n]) {
      let fee = start;
      for (let n = 0; n <= 8; n += 1) {
        expect(computeBaseFeeAfterFullBlocks(start, n)).toBe(fee);
        fee = computeNextBaseFee(fee, 30_000_001n, 30_000_001n);
      }
    }
  });

  it('keeps a tip of 0 includable for N full blocks under any gas limit, odd ones included', () => {
    // Odd limits are common while validators move the limit (a full block then rises a few wei more
    // than 1/8); a max fee computed for even limits fell a few wei under the base fee.
    const limits = [
      30_000_000n,
      30_000_001n,
      36_000_000n,
      36_000_001n,
      45_000_001n,
      60_000_000n,
      60_000_001n,
    ];
    let checked = 0;
    for (let base = 50_000_000n; base <= 20_000_000_000n; base += 99_733_331n) {
      for (const limit of limits) {
        for (const name of TIER_NAMES) {
          const blocks = TIER_HEADROOM_BLOCKS[name];
          let fee = base;
          for (let k = 0; k < blocks; k += 1) fee = computeNextBaseFee(fee, limit, limit);
          expect(computeMaxFeePerGas(base, 0n, blocks)).toBeGreaterThanOrEqual(fee);
          // The headroom for odd limits costs wei, not a visible share of the fee.
          expect(Number(computeMaxFeePerGas(base, 0n, blocks) - fee)).toBeLessThan(Number(base) * 1e-6);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(4_000);
  });

  it("covers every real block's base fee for the tier's number of blocks (9,901 blocks of July 2022)", () => {
    const fees = loadPerBlockBaseFees();
    expect(fees).toHaveLength(9_901);
    let uncovered = 0;
    for (const name of TIER_NAMES) {
      const blocks = TIER_HEADROOM_BLOCKS[name];
      for (let i = 0; i + blocks < fees.length; i += 1) {
        const cap = computeMaxFeePerGas(fees[i] as bigint, 0n, blocks);
        for (let k = 0; k <= blocks; k += 1) if ((fees[i + k] as bigint) > cap) uncovered += 1;
      }
    }
    expect(uncovered).toBe(0);
  });

  it('documents tiers from 2 to 6 full blocks (1.27x to 2.03x the next base fee)', () => {
    expect(TIER_HEADROOM_BLOCKS).toEqual({ low: 2, average: 4, high: 6 });
    expect(Number(computeBaseFeeAfterFullBlocks(GWEI, 2)) / 1e9).toBeCloseTo(1.265625, 7);
    expect(Number(computeBaseFeeAfterFullBlocks(GWEI, 6)) / 1e9).toBeCloseTo(2.0272865, 6);
  });
});

describe('wait model', () => {
  it('counts the non-empty blocks whose 1st-percentile tip the tip clears, smoothed by half a block', () => {
    const history: FeeHistory = {
      oldestBlock: 1n,
      baseFeePerGas: [1n, 1n, 1n, 1n, 1n, 1n],
      gasUsedRatio: [1, 1, 0, 1, 0.5],
      reward: [[5n], [10n], [0n], [20n], [10n]],
    };
    // Tip 10: clears block 0 (5), queues behind the equal tips of full block 1, loses block 3, and
    // matches the cheapest tip of block 4, which had room for everyone at that price.
    expect(estimateInclusionProbability(history, 0, 10n)).toBeCloseTo(2.5 / 5, 12);
    expect(estimateInclusionProbability(history, 0, 4n)).toBeCloseTo(0.5 / 5, 12);
    expect(estimateInclusionProbability(history, 0, 21n)).toBeCloseTo(4.5 / 5, 12);
  });

  it('replays the recent blocks from every starting point, recent ones weighing more', () => {
    // Four full blocks; tip 5 cleared the first two, not the last two: a backlog now.
    const history: FeeHistory = {
      oldestBlock: 1n,
      baseFeePerGas: [1n, 1n, 1n, 1n, 1n],
      gasUsedRatio: [1, 1, 1, 1],
      reward: [[0n], [0n], [10n], [10n]],
    };
    // Hand-computed with weights 2^((s - 3) / 8) and a tail chance of (2 + 0.5) / 5 per block.
    expect(estimateWait(history, 0, 5n)).toEqual({ p50: 24, p90: 60 });
    // The same blocks in the other order (the backlog cleared) promise the next block at the median.
    const cleared = { ...history, reward: [[10n], [10n], [0n], [0n]] };
    expect(estimateWait(cleared, 0, 5n).p50).toBe(12);
  });

  it('turns a per-block chance into geometric p50 / p90 waits in 12-second slots', () => {
    expect(estimateWaitSeconds(0.5)).toEqual({ p50: 12, p90: 48 }); // 1 - 0.5^4 = 0.9375
    expect(estimateWaitSeconds(20.5 / 21)).toEqual({ p50: 12, p90: 12 });
    expect(estimateWaitSeconds(0.5 / 21)).toEqual({ p50: 12 * 29, p90: 12 * 96 });
  });
});

describe('computeWalletFees', () => {
  it('keeps the original tiers and adds fee pairs exact to the wei (real blocks 17173049-50)', () => {
    const fees = computeWalletFees(REAL);
    expect(fees.tiers).toEqual({
      low: 80.546468498,
      average: 94.894029714,
      high: 127.651468498,
      baseFee: 77.651468498,
    });
    expect(fees.nextBaseFee).toBe(77_651_468_498n);
    expect(fees.wallet.low.maxPriorityFeePerGas).toBe(2_895_000_000n);
    expect(fees.wallet.average.maxPriorityFeePerGas).toBe(17_242_561_216n);
    expect(fees.wallet.high.maxPriorityFeePerGas).toBe(50_000_000_000n);
    expect(fees.wallet.low.maxFeePerGas).toBe(
      computeBaseFeeAfterFullBlocks(77_651_468_498n, 2) + 2_895_000_000n,
    );
    // Both blocks' cheapest tips (0.1 and 0 gwei) are below every tier: the next block.
    expect(fees.wallet.low.estimatedWaitSeconds).toEqual({ p50: 12, p90: 12 });
    expect(fees.gasUsedRatio).toBeCloseTo((9_755_040 + 15_491_478) / 60_000_000, 12);
    expect(fees.baseFeeTrend).toBe('flat');
  });

  it('holds the invariants on 2,000 random histories: maxFee >= next base fee + tip, tiers ordered', () => {
    const next = createRandom(14);
    for (let run = 0; run < 2_000; run += 1) {
      const history = randomHistory(next);
      let fees: ReturnType<typeof computeWalletFees>;
      try {
        fees = computeWalletFees(history);
      } catch (error) {
        // Only a tier above the sanity ceiling may be refused.
        expect(error).toBeInstanceOf(OracleError);
        continue;
      }
      const { low, average, high } = fees.wallet;
      for (const tier of [low, average, high]) {
        expect(tier.maxFeePerGas).toBeGreaterThanOrEqual(fees.nextBaseFee + tier.maxPriorityFeePerGas);
        expect(tier.estimatedWaitSeconds.p50).toBeLessThanOrEqual(tier.estimatedWaitSeconds.p90);
      }
      expect(low.maxPriorityFeePerGas).toBeLessThanOrEqual(average.maxPriorityFeePerGas);
      expect(average.maxPriorityFeePerGas).toBeLessThanOrEqual(high.maxPriorityFeePerGas);
      expect(low.maxFeePerGas).toBeLessThanOrEqual(average.maxFeePerGas);
      expect(average.maxFeePerGas).toBeLessThanOrEqual(high.maxFeePerGas);
      // A higher tip never waits longer.
      expect(low.estimatedWaitSeconds.p90).toBeGreaterThanOrEqual(average.estimatedWaitSeconds.p90);
      expect(average.estimatedWaitSeconds.p90).toBeGreaterThanOrEqual(high.estimatedWaitSeconds.p90);
      expect(fees.tiers.low).toBeLessThanOrEqual(fees.tiers.average);
      expect(fees.tiers.average).toBeLessThanOrEqual(fees.tiers.high);
    }
  });

  it('calls the trend from the next base fee against the window median (+/- 5 %)', () => {
    const history = (next: bigint): FeeHistory => ({
      oldestBlock: 1n,
      baseFeePerGas: [100n, 100n, 100n, next],
      gasUsedRatio: [0.5, 0.5, 0.5],
      reward: [[1n], [1n], [1n]],
    });
    expect(classifyTrend(history(106n), 106n)).toBe('rising');
    expect(classifyTrend(history(105n), 105n)).toBe('flat');
    expect(classifyTrend(history(94n), 94n)).toBe('falling');
  });
});

describe('trendFromGasUsed (the explorer backstop, which sends ratios but no base fees)', () => {
  it('compounds EIP-1559 steps of (2 x ratio - 1) / 8, in any order, against the same 5 %', () => {
    // Two full blocks and three empty ones: (9/8)^2 x (7/8)^3 = 0.848, a 15 % fall, whatever the order.
    for (const ratios of [
      [1, 1, 0, 0, 0],
      [0, 1, 0, 1, 0],
      [0, 0, 0, 1, 1],
    ])
      expect(trendFromGasUsed(ratios)).toBe('falling');
    expect(trendFromGasUsed([0.5, 0.5, 0.5, 0.5, 0.5])).toBe('flat');
    // 0.7 four times: 1.05^4 = 1.2155, rising; 0.58 once: 1.02, flat.
    expect(trendFromGasUsed([0.7, 0.7, 0.7, 0.7])).toBe('rising');
    expect(trendFromGasUsed([0.58])).toBe('flat');
  });

  it('reads a real Etherscan answer: five blocks under half full, a falling base fee', () => {
    // ../shared/data/provider_response_fixtures_2022.json, etherscan_gastracker_gasoracle[0] (2022-12-07):
    // (1 + (2r - 1) / 8) over the five ratios multiplies to 0.896, a 10.4 % fall.
    const fixtures = JSON.parse(readFileSync(resolve(DATA, 'provider_response_fixtures_2022.json'), 'utf8'));
    const ratios = String(fixtures.etherscan_gastracker_gasoracle[0].response.result.gasUsedRatio)
      .split(',')
      .map(Number);
    expect(ratios).toHaveLength(5);
    expect(trendFromGasUsed(ratios)).toBe('falling');
  });
});
