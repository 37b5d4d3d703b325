import type { FeeHistory } from './fee-history';
import { OracleError } from './fee-history';

/** The EIP-4844 blob fee market as served, in wei; each part null where the node cannot give it. */
export interface BlobFees {
  /** Blob base fee of the newest block. */
  blobBaseFee: bigint | null;
  /** Blob base fee of the next block: what a blob transaction sent now pays per blob gas. */
  nextBlobBaseFee: bigint | null;
  /** Mean blob gas used / maximum blob gas over the window's blocks. */
  blobGasUsedRatio: number | null;
  /** Blobs one block can carry now, derived from the newest block's blob gas and ratio; null if unknown. */
  maxBlobsPerBlock: number | null;
}

/** The blob facts of the latest header (EIP-4844 fields; absent before Cancun or on other chains). */
export interface BlobHeader {
  blobGasUsed: bigint | undefined;
  excessBlobGas: bigint | undefined;
  /**
   * False when the head is another block than the fee history's newest (the calls straddled a block,
   * or reached two backends): `eth_blobBaseFee` then prices another block, and is not checked against
   * the history. Absent means true.
   */
  sameBlock?: boolean;
}

/** Blob gas one blob uses (EIP-4844 GAS_PER_BLOB, unchanged by every fork since). */
export const GAS_PER_BLOB = 131_072n;

/**
 * No blob base fee above this is served. The highest block ever was 8,405 gwei (2024-06-20), when one
 * blob cost about 1.1 ETH; 100,000 gwei (13 ETH a blob) is a broken answer, not a market.
 */
export const MAX_SANE_BLOB_GWEI = 100_000;
const MAX_SANE_BLOB_WEI = BigInt(MAX_SANE_BLOB_GWEI) * 1_000_000_000n;

export const NO_BLOB_FEES: BlobFees = {
  blobBaseFee: null,
  nextBlobBaseFee: null,
  blobGasUsedRatio: null,
  maxBlobsPerBlock: null,
};

/**
 * Reads the blob fee market from one provider's answers, with no fork table: the fee history's blob
 * fields give the newest and next blocks' blob base fees and the usage ratios (every fork's target,
 * maximum, update fraction and EIP-7918 reserve price are already applied by the node), and
 * `eth_blobBaseFee` must agree with one of those two fees when the head is the history's newest block
 * (clients differ on which: the spec says the next block's, geth and Hardhat's EDR answer the head's). Without the fee history's blob fields,
 * `eth_blobBaseFee` alone gives the newest block's fee (what geth-derived clients answer), checked
 * against the header. Returns `null` when the provider gives no blob data at all.
 * Throws an OracleError for an answer that is absurd or contradicts itself or the header, like a
 * broken fee history.
 */
export function readBlobFees(
  history: FeeHistory,
  blobBaseFee: bigint | null,
  header: BlobHeader,
): BlobFees | null {
  const fees = history.baseFeePerBlobGas;
  const ratios = history.blobGasUsedRatio;
  const hasSeries =
    Array.isArray(fees) && Array.isArray(ratios) && fees.length > 0 && fees.some((f) => f > 0n);
  if (!hasSeries) {
    if (blobBaseFee === null) return null;
    assertSaneBlobFee(blobBaseFee);
    assertHeaderAgrees({ ...header, blobGasUsed: undefined }, blobBaseFee, 0);
    return { ...NO_BLOB_FEES, blobBaseFee };
  }
  const blocks = history.gasUsedRatio.length;
  if (fees.length !== blocks + 1 || ratios.length !== blocks)
    throw new OracleError('blob fields length mismatch');
  fees.forEach(assertSaneBlobFee);
  for (const ratio of ratios) {
    if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
      throw new OracleError('blobGasUsedRatio out of [0, 1]');
  }
  assertProtocolSteps(fees);
  const latest = fees[blocks - 1] as bigint;
  const next = fees[blocks] as bigint;
  if (blobBaseFee !== null && header.sameBlock !== false && blobBaseFee !== latest && blobBaseFee !== next) {
    throw new OracleError('eth_blobBaseFee disagrees with the fee history');
  }
  assertHeaderAgrees(header, latest, ratios[blocks - 1] as number);
  const mean = ratios.reduce((sum, r) => sum + r, 0) / ratios.length;
  return {
    blobBaseFee: latest,
    nextBlobBaseFee: next,
    blobGasUsedRatio: mean,
    maxBlobsPerBlock: deriveMaxBlobs(header.blobGasUsed, ratios[blocks - 1] as number),
  };
}

/** The least share of the blob fee's exponent a fork's first block keeps: old over new update fraction. */
const MIN_FORK_EXPONENT = 0.4;

/**
 * Within a fork the protocol moves the blob fee by well under 1/8 per block (EIP-4844 sized the update
 * fraction for that; EIP-7918's reserve-price branch moves it less); 1/4 and 1 wei of rounding leave
 * room for future forks without letting noise in. The current fork's own most (+8.2 % under BPO2:
 * e^(7 blobs' gas / update fraction)) would be tighter, but its target and update fraction come from
 * no call made here (only eth_config, EIP-7910, would give them), and a hard-coded value is the fork
 * table SPEC extension 16 rules out. A fork that raises the update fraction (Prague, and
 * each blob-parameter-only fork of EIP-7892) keeps the excess blob gas as it was, so at its first block
 * the fee falls at once to about fee^(old fraction / new fraction): on mainnet BPO1 took it from 0.0115
 * to 0.00002 gwei in one block, BPO2 from 0.0017 to 0.00003 (exponents 0.61 and 0.72 of the fee before;
 * Prague's was 0.67). One such fall in the window is accepted (forks are weeks apart) when it keeps at
 * least MIN_FORK_EXPONENT of the fee's exponent (a fork up to 2.5 times the fraction; 1 wei of rounding
 * allowed); a rise past the bound, a deeper fall (a broken answer's 1 wei after 0.0015 gwei), or a
 * second fall is not.
 */
function assertProtocolSteps(fees: readonly bigint[]): void {
  let forkFalls = 0;
  for (let i = 1; i < fees.length; i += 1) {
    const before = fees[i - 1] as bigint;
    const after = fees[i] as bigint;
    if (after * 4n > before * 5n + 4n)
      throw new OracleError('blob base fee rises faster than any fork allows');
    if (after * 4n + 4n < before * 3n) {
      forkFalls += 1;
      if (forkFalls > 1) throw new OracleError('blob base fee falls faster than a fork allows, twice');
      if (Math.log(Number(after) + 1) < MIN_FORK_EXPONENT * Math.log(Number(before)))
        throw new OracleError('blob base fee falls deeper than a fork allows');
    }
  }
}

function assertSaneBlobFee(fee: bigint): void {
  if (typeof fee !== 'bigint' || fee < 1n) throw new OracleError('blob base fee below 1 wei');
  if (fee > MAX_SANE_BLOB_WEI) throw new OracleError(`blob base fee above ${MAX_SANE_BLOB_GWEI} gwei`);
}

/**
 * The newest header must tell the same story as the fee history: blob base fee = fake_exponential(1,
 * excess, fraction), so no excess means the 1-wei minimum and a fee above it means some excess; and a
 * block with blob gas used has a non-zero usage ratio and vice versa.
 */
function assertHeaderAgrees(header: BlobHeader, latestFee: bigint, latestRatio: number): void {
  const { excessBlobGas, blobGasUsed } = header;
  if (excessBlobGas !== undefined) {
    if (excessBlobGas === 0n && latestFee !== 1n)
      throw new OracleError('blob fee above minimum with no excess');
  }
  if (blobGasUsed !== undefined && blobGasUsed > 0n !== latestRatio > 0) {
    throw new OracleError('blobGasUsedRatio inconsistent with header');
  }
}

/** Max blob gas = blob gas used / ratio, in whole blobs; null when the newest block carried none. */
function deriveMaxBlobs(blobGasUsed: bigint | undefined, ratio: number): number | null {
  if (blobGasUsed === undefined || blobGasUsed === 0n || ratio <= 0) return null;
  const blobs = Math.round(Number(blobGasUsed) / ratio / Number(GAS_PER_BLOB));
  return blobs >= 1 ? blobs : null;
}
