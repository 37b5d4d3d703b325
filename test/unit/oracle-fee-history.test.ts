import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { computeNextBaseFee, getNewestBlock } from '../../lib/oracle/fee-history';
import { computeRewardPercentiles } from '../../lib/oracle/reward-percentiles';

const dataDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/data');

// Real mainnet blocks 17173049-17173050 and their 298 transactions (ethereum-etl test resources, MIT).
const blocks = readFileSync(resolve(dataDir, 'mainnet_blocks_17173049-17173050.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map(
    (line) =>
      JSON.parse(line) as { number: number; base_fee_per_gas: number; gas_used: number; gas_limit: number },
  );
const txRows = readFileSync(resolve(dataDir, 'mainnet_txs_blocks_17173049-17173050.csv'), 'utf8')
  .trim()
  .split('\n');
const header = (txRows.shift() ?? '').split(',');
const col = (name: string) => header.indexOf(name);

/** Effective tips of one block's transactions, equally weighted (the CSV has no per-tx gas used). */
function tipsOf(block: { number: number; base_fee_per_gas: number }) {
  return txRows
    .map((line) => line.split(','))
    .filter((cells) => Number(cells[col('block_number')]) === block.number)
    .map((cells) => ({
      reward: BigInt(cells[col('gas_price')] ?? '0') - BigInt(block.base_fee_per_gas),
      gasUsed: 1n,
    }));
}

describe('computeNextBaseFee', () => {
  it('reproduces the base fee of real block 17173050 from block 17173049', () => {
    const [b49, b50] = blocks;
    if (!b49 || !b50) throw new Error('fixture missing');
    const next = computeNextBaseFee(
      BigInt(b49.base_fee_per_gas),
      BigInt(b49.gas_used),
      BigInt(b49.gas_limit),
    );
    expect(next).toBe(BigInt(b50.base_fee_per_gas));
  });

  it('raises by 1/8 for a full block and at least 1 wei above target', () => {
    expect(computeNextBaseFee(800n, 30n, 30n)).toBe(900n);
    expect(computeNextBaseFee(7n, 16n, 30n)).toBe(8n);
    expect(computeNextBaseFee(800n, 0n, 30n)).toBe(700n);
  });

  it('reproduces the next base fee of every real eth_feeHistory sample from its gas used ratio', () => {
    // 31624032653 at ratio 0.7082879 of a 30M block gives 33270758490 (SOURCES.md check).
    expect(computeNextBaseFee(31_624_032_653n, BigInt(Math.round(0.7082879 * 30_000_000)), 30_000_000n)).toBe(
      33_270_758_490n,
    );
  });
});

describe('computeRewardPercentiles', () => {
  it('picks the reward where the running gas reaches p % (real block 17173049, 116 txs)', () => {
    const block = blocks[0];
    if (!block) throw new Error('fixture missing');
    const tips = tipsOf(block);
    expect(tips).toHaveLength(116);
    // floor(116 * p / 100) = 81, 104, 114 transactions: the 81st, 104th and 114th smallest tips.
    expect(computeRewardPercentiles(tips, [70, 90, 99])).toEqual([
      2_790_000_000n,
      14_656_609_773n,
      50_000_000_000n,
    ]);
  });

  it('weights transactions by gas used', () => {
    const txs = [
      { reward: 1n, gasUsed: 21_000n },
      { reward: 5n, gasUsed: 100_000n },
      { reward: 9n, gasUsed: 21_000n },
    ];
    // total 142000 gas: 10 % -> 14200 (the first tx's 21000 covers it); 50 % -> 71000 and 80 % -> 113600
    // (the first two reach 121000); 90 % -> 127800 (needs the third).
    expect(computeRewardPercentiles(txs, [10, 50, 80, 90])).toEqual([1n, 5n, 5n, 9n]);
  });

  it('reports zeros for an empty block', () => {
    expect(computeRewardPercentiles([], [70, 90, 99])).toEqual([0n, 0n, 0n]);
  });
});

describe('getNewestBlock', () => {
  it('is the oldest block plus the block count minus one', () => {
    expect(
      getNewestBlock({ oldestBlock: 18_677_378n, baseFeePerGas: [], gasUsedRatio: [0, 0, 0, 0], reward: [] }),
    ).toBe(18_677_381n);
  });
});
