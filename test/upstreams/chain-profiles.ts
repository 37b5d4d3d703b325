import { BPO2, computeBlobBaseFee, computeNextExcessBlobGas, GAS_PER_BLOB } from './blob-market';
import {
  loadRealBlobBlocks,
  loadRealBlockFees,
  loadRealTipBlocks,
  loadSubGweiHourlyBaseFees,
  type RealBlobBlock,
  type TipSample,
} from './shared-data';

export type { TipSample } from './shared-data';

/** The fee facts of one block. */
export interface BlockFees {
  baseFee: bigint;
  gasUsedRatio: number;
  tips: readonly TipSample[];
  blobBaseFee: bigint;
  blobGasUsedRatio: number;
  blobGasUsed: bigint;
  excessBlobGas: bigint;
}

/**
 * The OP Stack operator fee as the predeploys hold it: the fork whose formula getOperatorFee applies
 * (`pre-isthmus`: an oracle without getOperatorFee and an L1Block without the parameters, so both
 * revert), and the scalar (uint32) and constant (uint64, wei) the operator set in SystemConfig.
 */
export interface OperatorFeeState {
  fork: 'pre-isthmus' | 'isthmus' | 'jovian';
  scalar: number;
  constant: bigint;
}

/** OP Stack GasPriceOracle state (Ecotone/Fjord fields, and the operator fee since Isthmus). */
export interface OpOracleState {
  l1BaseFee: bigint;
  blobBaseFee: bigint;
  baseFeeScalar: number;
  blobBaseFeeScalar: number;
  operatorFee: OperatorFeeState;
}

/** What makes one chain: id, block rhythm and its default fee data, identical for all its providers. */
export interface ChainProfile {
  name: 'mainnet' | 'arbitrum' | 'optimism' | 'base' | 'polygon';
  chainId: number;
  blockTimeMs: number;
  /** A block number and its timestamp (seconds); the head advances from it at `blockTimeMs`. */
  anchor: { number: number; timestamp: number };
  gasLimit: bigint;
  clientVersion: string;
  /** Fee data of block n; a pure function of n so every provider of the chain agrees. */
  feesAt(n: number): BlockFees;
  /** Fixed tip eth_gasPrice / eth_maxPriorityFeePerGas add (L2 clients); absent: geth's oracle over tips. */
  suggestedTip?: bigint;
  opOracle?: OpOracleState;
  /** Arbitrum: ArbOS's L1 price per calldata unit (wei), which the NodeInterface prices L1 gas with. */
  arbL1PricePerUnit?: bigint;
}

const GWEI = 1_000_000_000n;

/** Index into a cycle for any block number (also negative ones, which `%` would not map). */
export function cycleIndex(n: number, length: number): number {
  return ((n % length) + length) % length;
}

/** The gas-used ratio EIP-1559 implies for a base-fee step (next = base * (1 + (ratio - 0.5) / 0.5 / 8)). */
export function impliedGasUsedRatio(baseFee: bigint, next: bigint): number {
  if (baseFee === 0n) return 0.5;
  const step = Number(next - baseFee) / Number(baseFee);
  return Math.min(1, Math.max(0, 0.5 * (1 + 8 * step)));
}

/**
 * How the simulated mainnet prices its blocks. `late-2023` (the default): the real blocks of late 2023,
 * base fees about 30 gwei and tips mostly 0.1 to 50 gwei. `sub-gwei-2026`: today's chain (SUB_GWEI_2026):
 * the same blocks' shape at the real base-fee level of January 2026 and tips a thousandth of theirs.
 */
export type MainnetRegime = 'late-2023' | 'sub-gwei-2026';

/**
 * The sub-gwei regime. The base fee sits at the real hourly median of `level` (0.0504 gwei, 2026-01-21
 * 07:00Z, near the sample's median of 0.044: mainnet_basefee_hourly_median_2026-01-07_2026-01-21.csv);
 * a seeded history of that sample ends at the same hour (seedRealHistory), so the live reading carries
 * on from the stored one. shared/data has no per-transaction tips of 2026: tips are the real late-2023
 * distributions divided by `tipDivisor`, which puts the 70th / 90th / 99th percentile tips the tiers
 * are built on at about 0.003 / 0.02 / 0.05 gwei and the lowest at 0 to 0.0001 gwei (an assumption,
 * not a measurement).
 */
export const SUB_GWEI_2026 = { level: Date.parse('2026-01-21T07:00:00Z'), tipDivisor: 1000n } as const;

/** The base fee, in wei, that the sub-gwei regime's block cycle averages: the real hour SUB_GWEI_2026.level. */
function subGweiLevelWei(): bigint {
  const hour = loadSubGweiHourlyBaseFees().find((h) => h.time === SUB_GWEI_2026.level);
  if (!hour) throw new Error('no 2026 hourly base fee at the sub-gwei level hour');
  return BigInt(Math.round(hour.baseFeeGwei * 1e9));
}

/** One block of the simulated blob market: its blob header fields and its blob base fee. */
export interface BlobBlock {
  blobGasUsed: bigint;
  excessBlobGas: bigint;
  blobBaseFee: bigint;
}

/**
 * A cycle of blob blocks in which every block follows from its parent by BPO2's update (EIP-4844, or
 * EIP-7918's reserve-price branch), the last block's included, so the blob fee never moves more than
 * the protocol allows: at most +8.2 % (7 blobs over target) and -14.5 % (an empty block) a block.
 *
 * Played backwards, real blocks cannot be: a real fall becomes a rise the protocol forbids (the mirror
 * this replaced served +13.1 % in one block). Nor can the real excess blob gas itself close a cycle:
 * EIP-7918's branch adds blobGasUsed x 7 / 21, rounded down, so a block of 1 or 2 blobs (mod 3) leaves
 * the excess off a whole number of blobs, and undoing that takes tens of thousands of blocks. So the
 * cycle starts at the first real block's excess and follows the real blocks forward: a real update by
 * the EIP-4844 branch keeps its real blob count (the same step), one by EIP-7918's keeps that branch
 * with the nearest count that is a multiple of 3 (its fee then stays within about 0.6 % of the real
 * one). It then walks back over its own excess values, latest first, by the EIP-4844 branch (14 blobs
 * plus the step; a fall steeper than the steepest rise takes more than one block), to the first block's
 * excess, where the cycle begins again. Which branch applies depends on the execution base fee, which
 * this cycle does not model.
 */
export function buildBlobCycle(real: readonly RealBlobBlock[]): BlobBlock[] {
  const G = GAS_PER_BLOB;
  const target = BPO2.targetBlobs;
  const blocks: BlobBlock[] = [];
  let excess = real[0]!.excessBlobGas;
  const add = (blobs: bigint, reservePriceBinds: boolean) => {
    const blobGasUsed = blobs * G;
    blocks.push({
      blobGasUsed,
      excessBlobGas: excess,
      blobBaseFee: computeBlobBaseFee(excess, BPO2.updateFraction),
    });
    excess = computeNextExcessBlobGas({ excessBlobGas: excess, blobGasUsed, reservePriceBinds }, BPO2);
  };
  const clamp = (v: bigint, lo: bigint, hi: bigint) => (v < lo ? lo : v > hi ? hi : v);
  // Whole blobs from here to `to`, rounded to the nearest (every excess here is the first one plus whole blobs).
  const blobsTo = (to: bigint) => {
    const diff = to - excess;
    return (diff + (diff >= 0n ? G / 2n : -G / 2n)) / G;
  };
  for (let i = 0; i + 1 < real.length; i += 1) {
    const step = blobsTo(real[i + 1]!.excessBlobGas);
    if (real[i + 1]!.eip7918 === true && step >= 0n) add(clamp(3n * step, 0n, BPO2.maxBlobs), true);
    else add(clamp(target + step, 0n, BPO2.maxBlobs), false);
  }
  const forward = blocks.map((block) => block.excessBlobGas);
  for (const back of forward.reverse()) {
    do add(clamp(target + (back - excess) / G, 0n, BPO2.maxBlobs), false);
    while (excess !== back);
  }
  return blocks;
}

/**
 * Mainnet: a 10-block cycle of real blocks (18677346-49 and 18677376-81, late Nov 2023) with their real
 * base fees and gas-used ratios; where the cycle joins two runs, the ratio is the one EIP-1559 implies
 * for the step, so every block's next base fee follows from its ratio. Tips alternate between the real
 * effective-tip distributions of blocks 17173049 and 17173050. The blob fields follow 720 consecutive
 * real blocks from 2026-01-19 (BPO2: target 14, max 21 blobs; EIP-7918's reserve price often binding)
 * and walk back to the first, every block a legal update of its parent (buildBlobCycle).
 * `sub-gwei-2026` scales every base fee by one factor (the cycle's mean becomes the 2026 level; EIP-1559
 * steps are relative, so the gas-used ratios still fit) and divides every tip by SUB_GWEI_2026.tipDivisor.
 */
function createMainnetProfile(regime: MainnetRegime): ChainProfile {
  const blocks = loadRealBlockFees();
  const sum = blocks.reduce((total, block) => total + block.baseFee, 0n);
  const [times, per] =
    regime === 'sub-gwei-2026' ? [subGweiLevelWei() * BigInt(blocks.length), sum] : [1n, 1n];
  const cycle = blocks.map((block, i) => {
    const following = blocks[(i + 1) % blocks.length]!;
    const ratio =
      following.number === block.number + 1
        ? block.gasUsedRatio
        : impliedGasUsedRatio(block.baseFee, following.baseFee);
    return { baseFee: (block.baseFee * times) / per, gasUsedRatio: ratio };
  });
  const divisor = regime === 'sub-gwei-2026' ? SUB_GWEI_2026.tipDivisor : 1n;
  const tipBlocks = loadRealTipBlocks().map((samples) =>
    samples.map((sample) => ({ tip: sample.tip / divisor, weight: sample.weight })),
  );
  const blobCycle = buildBlobCycle(loadRealBlobBlocks().slice(0, 720));
  const maxBlobGas = Number(BPO2.maxBlobs * GAS_PER_BLOB);
  return {
    name: 'mainnet',
    chainId: 1,
    blockTimeMs: 12_000,
    // Real block 17173049 and its timestamp (mainnet_blocks_17173049-17173050.jsonl); 12 s slots from there.
    anchor: { number: 17_173_049, timestamp: 1_683_029_999 },
    gasLimit: 30_000_000n,
    clientVersion: 'Geth/v1.16.7-stable/linux-amd64/go1.24.9',
    feesAt(n) {
      const block = cycle[cycleIndex(n, cycle.length)]!;
      const blob = blobCycle[cycleIndex(n, blobCycle.length)]!;
      return {
        baseFee: block.baseFee,
        gasUsedRatio: block.gasUsedRatio,
        tips: tipBlocks[cycleIndex(n, tipBlocks.length)]!,
        blobBaseFee: blob.blobBaseFee,
        blobGasUsedRatio: Number(blob.blobGasUsed) / maxBlobGas,
        blobGasUsed: blob.blobGasUsed,
        excessBlobGas: blob.excessBlobGas,
      };
    },
  };
}

function flatFees(baseFee: bigint, gasUsedRatio: number, tips: bigint[]): (n: number) => BlockFees {
  const samples = tips.map((tip) => ({ tip, weight: 21_000 }));
  return () => ({
    baseFee,
    gasUsedRatio,
    tips: samples,
    blobBaseFee: 0n,
    blobGasUsedRatio: 0,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
  });
}

/*
 * L2 defaults: shared/data has no L2 data, so these are current-day levels with their sources:
 * - Arbitrum One: ArbOS's minimum L2 base fee of 0.01 gwei, where the chain sits when not congested;
 *   Nitro's eth_gasPrice is the base fee (tips are ignored). Anchor: Nitro genesis block 22207817
 *   (2022-08-31), blocks about every 0.25 s (approximate).
 * - OP Mainnet: the base fee idles far below op-geth's MinSuggestedPriorityFee of 0.001 gwei
 *   (gaspricecfg DefaultMinSuggestedPriorityFee; viem's feesOptimism uses the same), so eth_gasPrice is
 *   about 0.001 gwei. Anchor: Bedrock block 105235063 at 1686068903, then exact 2 s blocks.
 * - Base: minimum base fee 0.005 gwei after the Jovian upgrade (Base docs, "Network Fees") plus the same
 *   0.001 gwei suggested tip. Anchor: genesis at 1686789347, exact 2 s blocks.
 * - Polygon PoS: a 25 gwei floor (minimum priority fee per the Polygon gas-station docs; PIP-59 moves it
 *   into the base fee), so eth_gasPrice is about 30 gwei. Anchor approximate, 2 s blocks: the chain's
 *   until Madhugiri (block 80084800), 1 s since; the service's freshness limits hold for both.
 * GasPriceOracle scalars: the values OP Mainnet and Base set in SystemConfig after Ecotone (2024,
 * approximate); the L1 base fee the oracle holds is ~0.9 gwei, the last Etherscan daily average gas price
 * in shared/data (2025-11-22); the blob base fee is at its 1-wei floor. Operator fee: both chains are past
 * Jovian, and by default it is 0 (scalar and constant 0, as an operator that sets none); tests set others.
 */
function createL2Profiles(): ChainProfile[] {
  const opTips = [1_000_000n, 1_000_000n, 1_200_000n, 2_000_000n, 5_000_000n, 50_000_000n];
  return [
    {
      name: 'arbitrum',
      chainId: 42161,
      blockTimeMs: 250,
      anchor: { number: 22_207_817, timestamp: 1_661_956_342 },
      gasLimit: 32_000_000n,
      clientVersion: 'nitro/v3.8.0-62c0aa7/linux-amd64/go1.24.6',
      feesAt: flatFees(GWEI / 100n, 0.08, [0n]),
      suggestedTip: 0n,
      // About the L1 base fee of late 2025 (0.05 gwei); ArbOS tracks it per calldata unit.
      arbL1PricePerUnit: 50_000_000n,
    },
    {
      name: 'optimism',
      chainId: 10,
      blockTimeMs: 2000,
      anchor: { number: 105_235_063, timestamp: 1_686_068_903 },
      gasLimit: 40_000_000n,
      clientVersion: 'op-geth/v1.101603.4-stable/linux-amd64/go1.24.9',
      feesAt: flatFees(250_000n, 0.35, opTips),
      suggestedTip: 1_000_000n,
      opOracle: {
        l1BaseFee: 900_000_000n,
        blobBaseFee: 1n,
        baseFeeScalar: 5227,
        blobBaseFeeScalar: 1_014_213,
        operatorFee: { fork: 'jovian', scalar: 0, constant: 0n },
      },
    },
    {
      name: 'base',
      chainId: 8453,
      blockTimeMs: 2000,
      anchor: { number: 0, timestamp: 1_686_789_347 },
      gasLimit: 150_000_000n,
      clientVersion: 'op-geth/v1.101603.4-stable/linux-amd64/go1.24.9',
      feesAt: flatFees(5_000_000n, 0.4, opTips),
      suggestedTip: 1_000_000n,
      opOracle: {
        l1BaseFee: 900_000_000n,
        blobBaseFee: 1n,
        baseFeeScalar: 2269,
        blobBaseFeeScalar: 1_055_762,
        operatorFee: { fork: 'jovian', scalar: 0, constant: 0n },
      },
    },
    {
      name: 'polygon',
      chainId: 137,
      blockTimeMs: 2000,
      anchor: { number: 0, timestamp: 1_590_824_836 },
      gasLimit: 45_000_000n,
      clientVersion: 'bor/v2.3.3/linux-amd64/go1.24.6',
      feesAt: flatFees(5n * GWEI, 0.45, [25n * GWEI, 25n * GWEI, 27n * GWEI, 30n * GWEI, 40n * GWEI]),
      suggestedTip: 25n * GWEI,
    },
  ];
}

let profiles: Map<ChainProfile['name'], ChainProfile> | undefined;
let subGweiMainnet: ChainProfile | undefined;

/**
 * The profile of a chain; the real data is read from disk once per process. `regime` picks mainnet's
 * fee level (the L2 chains have one each).
 */
export function getChainProfile(
  name: ChainProfile['name'],
  regime: MainnetRegime = 'late-2023',
): ChainProfile {
  if (name === 'mainnet' && regime === 'sub-gwei-2026') {
    subGweiMainnet ??= createMainnetProfile(regime);
    return subGweiMainnet;
  }
  profiles ??= new Map([createMainnetProfile('late-2023'), ...createL2Profiles()].map((p) => [p.name, p]));
  const profile = profiles.get(name);
  if (!profile) throw new Error(`no chain profile ${name}`);
  return profile;
}
