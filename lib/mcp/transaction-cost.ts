import { formatEther, formatGwei, parseGwei } from 'viem';
import { roundUsd } from '../l2/fees';

/** What a cost estimate is built from; the L1 data fee only where the network charges one. */
export interface CostInput {
  gasLimit: number;
  /** Fee per gas in gwei of the native token, with sub-gwei digits down to one wei. */
  gasPriceGwei: number;
  /** USD price of the native token; null when no price source answered. */
  nativeUsd: number | null;
  /**
   * `none`: the network has no separate L1 fee. Otherwise the L1 data fee in USD of a representative
   * transfer (null when it could not be read or priced); it is paid in the native token (ETH on OP Stack).
   */
  l1DataFee: 'none' | { usd: number | null };
}

/** A fee in the three units the tool reports. */
export interface FeeAmount {
  /** In gwei of the native token (1e-9 ETH or POL). */
  gwei: number;
  /** In the native token (ETH or POL). */
  native: number;
  /** In USD at the native token price; null when the price is unknown. */
  usd: number | null;
}

/** The estimate: execution, the L1 data fee where it applies, and their sum where both are known. */
export interface TransactionCost {
  execution: FeeAmount;
  l1DataFee: FeeAmount | null;
  total: FeeAmount | null;
}

/**
 * Prices `gasLimit` gas at `gasPriceGwei` exactly (in wei, so a 0.001-gwei L2 price times a large limit
 * keeps every digit) and adds the L1 data fee where the network has one. The total is null when an L1
 * fee applies but is unknown, since execution alone would understate what a wallet pays.
 */
export function computeTransactionCost(input: CostInput): TransactionCost {
  const weiPerGas = parseGwei(input.gasPriceGwei.toFixed(9));
  const executionWei = BigInt(input.gasLimit) * weiPerGas;
  const execution = amountFromWei(executionWei, input.nativeUsd);
  if (input.l1DataFee === 'none') return { execution, l1DataFee: null, total: execution };

  const l1Usd = input.l1DataFee.usd;
  if (l1Usd === null || input.nativeUsd === null) return { execution, l1DataFee: null, total: null };
  // The service reports the L1 fee in USD at the same native (ETH) price; dividing recovers the token amount.
  const l1Native = l1Usd / input.nativeUsd;
  const l1DataFee: FeeAmount = {
    gwei: roundSignificant(l1Native * 1e9),
    native: roundSignificant(l1Native),
    usd: l1Usd,
  };
  const totalNative = Number(formatEther(executionWei)) + l1Native;
  const total: FeeAmount = {
    gwei: roundSignificant(totalNative * 1e9),
    native: roundSignificant(totalNative),
    usd: roundUsd(totalNative * input.nativeUsd),
  };
  return { execution, l1DataFee, total };
}

function amountFromWei(wei: bigint, nativeUsd: number | null): FeeAmount {
  const native = Number(formatEther(wei));
  return {
    gwei: Number(formatGwei(wei)),
    native,
    usd: nativeUsd === null ? null : roundUsd(native * nativeUsd),
  };
}

/**
 * Keeps 4 significant digits: an L1 fee recovered from a USD figure rounded to 4 digits carries no
 * more, and printing more would claim a precision the figure does not have.
 */
function roundSignificant(value: number): number {
  return value === 0 ? 0 : Number(value.toPrecision(4));
}
