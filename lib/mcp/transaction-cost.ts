import { formatEther, formatGwei } from 'viem';
import { roundUsd } from '../l2/fees';

/** What a cost estimate is built from; the L1 data fee only where the network charges one. */
export interface CostInput {
  gasLimit: number;
  /** Fee per gas in wei of the native token. */
  gasPriceWei: bigint;
  /** USD price of the native token; null when no price source answered. */
  nativeUsd: number | null;
  /**
   * `none`: the network has no separate L1 fee. Otherwise the L1 data fee in wei of a representative
   * transfer (null when it could not be read); it is paid in the native token (ETH on OP Stack).
   */
  l1DataFee: 'none' | { wei: bigint | null };
  /**
   * OP Stack: the operator fee of `gasLimit` gas in wei (null when it could not be read or derived:
   * the total then excludes it, see computeTransactionCost); absent where the network charges none.
   */
  operatorFee?: { wei: bigint | null };
  /** EIP-4844 blob gas cost in wei (mainnet); null when blobs were asked for but the blob fee is unknown. */
  blobFee?: { wei: bigint | null };
}

/** A fee in the units the tool reports. */
export interface FeeAmount {
  /** In wei of the native token, exact, as a decimal string (a JSON number keeps about 15 digits). */
  wei: string;
  /** In gwei of the native token (1e-9 ETH or POL), to a JSON number's precision (exact below 0.009 ETH). */
  gwei: number;
  /** In the native token (ETH or POL), to a JSON number's precision. */
  native: number;
  /** In USD at the native token price; null when the price is unknown. */
  usd: number | null;
}

/** The estimate: execution, the parts that apply beside it, and their sum where all are known. */
export interface TransactionCost {
  execution: FeeAmount;
  l1DataFee: FeeAmount | null;
  operatorFee: FeeAmount | null;
  blobFee: FeeAmount | null;
  total: FeeAmount | null;
}

/**
 * Prices `gasLimit` gas at the gas price exactly, in wei, and adds the L1 data fee and the operator
 * fee where the network has them and the blob gas cost of a blob transaction. The total is null when
 * the L1 fee or the blob cost applies but is unknown, since execution alone would understate what a
 * wallet pays. An unknown operator fee is left out of the total instead (its caller says so): SPEC
 * 2.10's wallet fee does not count it, and it is 0 unless the chain's operator sets one.
 */
export function computeTransactionCost(input: CostInput): TransactionCost {
  const executionWei = BigInt(input.gasLimit) * input.gasPriceWei;
  const execution = amountFromWei(executionWei, input.nativeUsd);
  const l1Wei = input.l1DataFee === 'none' ? 0n : input.l1DataFee.wei;
  const operatorWei = input.operatorFee?.wei ?? null;
  const blobWei = input.blobFee === undefined ? 0n : input.blobFee.wei;
  const l1DataFee =
    input.l1DataFee === 'none' || l1Wei === null ? null : amountFromWei(l1Wei, input.nativeUsd);
  const operatorFee = operatorWei === null ? null : amountFromWei(operatorWei, input.nativeUsd);
  const blobFee =
    input.blobFee === undefined || blobWei === null ? null : amountFromWei(blobWei, input.nativeUsd);
  // A part that applies but is unknown leaves the total unknown: execution alone would understate it.
  const total =
    l1Wei === null || blobWei === null
      ? null
      : amountFromWei(executionWei + l1Wei + (operatorWei ?? 0n) + blobWei, input.nativeUsd);
  return { execution, l1DataFee, operatorFee, blobFee, total };
}

function amountFromWei(wei: bigint, nativeUsd: number | null): FeeAmount {
  const native = Number(formatEther(wei));
  return {
    wei: wei.toString(),
    gwei: Number(formatGwei(wei)),
    native,
    usd: nativeUsd === null ? null : roundUsd(native * nativeUsd),
  };
}
