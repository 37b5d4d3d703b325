import { formatEther } from 'viem';

/** Gas used by a plain ETH (or POL) transfer: the execution figure every network is compared on. */
export const TRANSFER_GAS = 21_000n;

/** The USD figures of one reading; null where the price or an oracle fee is unknown or does not apply. */
export interface L2FeesUsd {
  executionGasCostUsd: number | null;
  l1DataFeeUsd: number | null;
  operatorFeeUsd: number | null;
  walletFeeUsd: number | null;
}

/**
 * Rounds a USD amount to 4 significant digits, never coarser than a cent: $12.3456 -> 12.35,
 * $0.0012345 -> 0.001235. L2 fees are often fractions of a cent, which cents alone would show as 0.
 */
export function roundUsd(usd: number): number {
  if (usd === 0 || !Number.isFinite(usd)) return usd;
  return Number(usd.toFixed(usdDecimals(usd)));
}

/** The decimals roundUsd keeps for `usd` (a nonzero, finite amount). */
function usdDecimals(usd: number): number {
  return Math.min(20, Math.max(2, 3 - Math.floor(Math.log10(Math.abs(usd)))));
}

/**
 * Adds two amounts rounded by roundUsd, exactly as served (SPEC 2.10: the OP Stack wallet fee is
 * executionGasCostUsd + estimatedL1DataFeeUsd), without binary floating-point noise.
 */
function addRoundedUsd(a: number, b: number): number {
  const decimals = Math.max(...[a, b].map((usd) => (usd === 0 ? 0 : usdDecimals(usd))));
  return Number((a + b).toFixed(decimals));
}

/** Converts an amount in wei of a token to USD at `usdPerToken`, unrounded. */
export function weiToUsd(wei: bigint, usdPerToken: number): number {
  return Number(formatEther(wei)) * usdPerToken;
}

/**
 * Computes the USD fees of a 21,000-gas transfer: execution at the network's gas price in its native
 * token, plus (OP Stack) the L1 data fee, always paid in ETH. The wallet fee is the sum of the two
 * figures as served where the L1 fee is known, the execution cost where the network has no L1 fee,
 * and null where an L1 fee exists but could not be read (an execution-only figure would understate it).
 * The OP Stack operator fee (ETH too) is priced on its own: SPEC 2.10's wallet fee does not include
 * it, so it is paid on top, and an unread one leaves the other figures be.
 */
export function computeFeesUsd(input: {
  gasPriceWei: bigint;
  nativeUsd: number | null;
  ethUsd: number | null;
  /** OP Stack: the network charges an L1 data fee (and, on top of the wallet fee, an operator fee). */
  hasL1DataFee: boolean;
  l1FeeWei: bigint | null;
  operatorFeeWei: bigint | null;
}): L2FeesUsd {
  const execution =
    input.nativeUsd === null ? null : weiToUsd(TRANSFER_GAS * input.gasPriceWei, input.nativeUsd);
  const inEth = (wei: bigint | null) =>
    input.hasL1DataFee && wei !== null && input.ethUsd !== null
      ? roundUsd(weiToUsd(wei, input.ethUsd))
      : null;
  const executionUsd = execution === null ? null : roundUsd(execution);
  const l1Usd = inEth(input.l1FeeWei);
  const operatorUsd = inEth(input.operatorFeeWei);
  let wallet: number | null = null;
  if (executionUsd !== null) {
    if (!input.hasL1DataFee) wallet = executionUsd;
    else if (l1Usd !== null) wallet = addRoundedUsd(executionUsd, l1Usd);
  }
  return {
    executionGasCostUsd: executionUsd,
    l1DataFeeUsd: l1Usd,
    operatorFeeUsd: operatorUsd,
    walletFeeUsd: wallet,
  };
}
