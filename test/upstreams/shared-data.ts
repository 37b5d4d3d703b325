import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Real chain data beside the project (`../shared/data`, see its SOURCES.md); CI checks it is there. */
const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/data');

/** One transaction's effective priority fee and its weight (its gas limit: the data has no receipts). */
export interface TipSample {
  tip: bigint;
  weight: number;
}

/** One real block's base fee and how full it was. */
export interface RealBlockFee {
  number: number;
  baseFee: bigint;
  gasUsedRatio: number;
}

function readData(name: string): string {
  return readFileSync(join(DATA_DIR, name), 'utf8');
}

interface FeeHistorySample {
  result_decimal: { oldestBlock: number; baseFeePerGas: number[]; gasUsedRatio: number[] };
}

/**
 * Real mainnet blocks 18677346-18677349 and 18677376-18677381 (late Nov 2023) with their base fees and
 * gas-used ratios, from the wagmi `eth_feeHistory` snapshots, in block order.
 */
export function loadRealBlockFees(): RealBlockFee[] {
  const file = JSON.parse(readData('mainnet_eth_feeHistory_samples_blocks_18677346-18677381.json')) as {
    samples: FeeHistorySample[];
  };
  const byNumber = new Map<number, RealBlockFee>();
  for (const { result_decimal: r } of file.samples) {
    r.gasUsedRatio.forEach((ratio, i) => {
      const number = r.oldestBlock + i;
      byNumber.set(number, { number, baseFee: BigInt(r.baseFeePerGas[i] ?? 0), gasUsedRatio: ratio });
    });
  }
  return [...byNumber.values()].sort((a, b) => a.number - b.number);
}

/**
 * Effective priority fees of every transaction in real mainnet blocks 17173049 and 17173050
 * (ethereum-etl export): `gas_price` is the effective price, so tip = gas_price - the block's base fee.
 */
export function loadRealTipBlocks(): TipSample[][] {
  const baseFees = new Map<number, bigint>();
  for (const line of readData('mainnet_blocks_17173049-17173050.jsonl').split('\n')) {
    if (!line.trim()) continue;
    const block = JSON.parse(line) as { number: number; base_fee_per_gas: number };
    baseFees.set(block.number, BigInt(block.base_fee_per_gas));
  }
  const [header, ...rows] = readData('mainnet_txs_blocks_17173049-17173050.csv').trim().split('\n');
  const columns = (header ?? '').split(',');
  const col = (name: string) => columns.indexOf(name);
  const [blockCol, gasCol, priceCol] = [col('block_number'), col('gas'), col('gas_price')];
  const byBlock = new Map<number, TipSample[]>();
  for (const row of rows) {
    const fields = row.split(',');
    const number = Number(fields[blockCol]);
    const baseFee = baseFees.get(number);
    if (baseFee === undefined) throw new Error(`no base fee for block ${number}`);
    const samples = byBlock.get(number) ?? [];
    samples.push({ tip: BigInt(fields[priceCol] ?? '0') - baseFee, weight: Number(fields[gasCol]) });
    byBlock.set(number, samples);
  }
  return [...byBlock.entries()].sort(([a], [b]) => a - b).map(([, samples]) => samples);
}

/** Real daily ETH/USD closes (Etherscan export) for `days` days starting at `firstDate` (M/D/YYYY). */
export function loadDailyEthUsd(firstDate: string, days: number): number[] {
  const rows = readData('etherscan_daily_eth_usd_2015-07-30_2022-09-19.csv').trim().split('\n');
  const start = rows.findIndex((row) => row.startsWith(`"${firstDate}"`));
  if (start < 0) throw new Error(`no ETH/USD row for ${firstDate}`);
  return rows.slice(start, start + days).map((row) => Number(row.split(',')[2]?.replaceAll('"', '')));
}

/** One real mainnet block's blob header fields and blob base fee (Chainscore score-da, CC BY 4.0). */
export interface RealBlobBlock {
  number: number;
  blobGasUsed: bigint;
  excessBlobGas: bigint;
  blobBaseFee: bigint;
  /**
   * This block's excess blob gas came from EIP-7918's reserve-price branch of the update from its parent;
   * null where the data leaves it open (both branches give the same excess when the parent was full).
   */
  eip7918: boolean | null;
}

/** Every block of 2026-01-19 to 2026-01-21 (BPO2 rules: target 14, max 21 blobs) with its blob facts. */
export function loadRealBlobBlocks(): RealBlobBlock[] {
  const [header, ...rows] = readData('mainnet_blob_per_block_2026-01-19_2026-01-21.csv').trim().split('\n');
  const columns = (header ?? '').split(',');
  const col = (name: string) => columns.indexOf(name);
  const [n, used, excess, fee, branch] = [
    col('block_number'),
    col('blob_gas_used'),
    col('excess_blob_gas'),
    col('blob_base_fee_wei'),
    col('eip7918_branch'),
  ];
  return rows.map((row) => {
    const f = row.split(',');
    return {
      number: Number(f[n]),
      blobGasUsed: BigInt(f[used] ?? '0'),
      excessBlobGas: BigInt(f[excess] ?? '0'),
      blobBaseFee: BigInt(f[fee] ?? '0'),
      eip7918: f[branch] === '1' ? true : f[branch] === '0' ? false : null,
    };
  });
}

/** An hourly median base-fee CSV of shared/data (`timestamp_utc,unix_ts,base_fee_gwei,...`), oldest first. */
function readHourlyBaseFees(name: string): { time: number; baseFeeGwei: number }[] {
  return readData(name)
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [, unix, gwei] = line.split(',');
      return { time: Number(unix) * 1000, baseFeeGwei: Number(gwei) };
    });
}

/** Real hourly median mainnet base fees (gwei), 2023-10-27 to 2024-02-13, oldest first. */
export function loadHourlyBaseFees(): { time: number; baseFeeGwei: number }[] {
  return readHourlyBaseFees('mainnet_basefee_hourly_median_2023-10-27_2024-02-13.csv');
}

/**
 * Real hourly median mainnet base fees (gwei) of today's sub-gwei chain, 2026-01-07T14Z to 2026-01-21T13Z,
 * oldest first (SOURCES.md section E).
 */
export function loadSubGweiHourlyBaseFees(): { time: number; baseFeeGwei: number }[] {
  return readHourlyBaseFees('mainnet_basefee_hourly_median_2026-01-07_2026-01-21.csv');
}
