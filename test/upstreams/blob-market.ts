/**
 * EIP-4844's blob fee arithmetic, for the simulators and for tests that check our reading of real
 * chain data. Production code never computes blob fees: it reads them from the node, which knows the
 * current fork's parameters.
 */

/** Blob gas one blob uses. */
export const GAS_PER_BLOB = 131_072n;

/** Parameters of the blob-parameter-only fork BPO1 (mainnet 2025-12-09 to 2026-01-07). */
export const BPO1 = { targetBlobs: 10n, maxBlobs: 15n, updateFraction: 8_346_193n } as const;

/** Parameters of the blob-parameter-only fork BPO2 (mainnet since 2026-01-07). */
export const BPO2 = { targetBlobs: 14n, maxBlobs: 21n, updateFraction: 11_684_671n } as const;

/** EIP-4844 fake_exponential: factor * e^(numerator / denominator) in integers, as clients compute it. */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let accum = factor * denominator;
  while (accum > 0n) {
    output += accum;
    accum = (accum * numerator) / (denominator * i);
    i += 1n;
  }
  return output / denominator;
}

/** The blob base fee of a block with `excessBlobGas` (minimum 1 wei). */
export function computeBlobBaseFee(excessBlobGas: bigint, updateFraction: bigint): bigint {
  return fakeExponential(1n, excessBlobGas, updateFraction);
}

/**
 * The next block's excess blob gas (EIP-4844 with EIP-7918). `reservePriceBinds` is EIP-7918's test
 * (BLOB_BASE_COST * base fee > GAS_PER_BLOB * blob base fee): when blob space is cheaper than its
 * reserve price, the excess grows by the used share of the spare capacity instead of falling.
 */
export function computeNextExcessBlobGas(
  parent: { excessBlobGas: bigint; blobGasUsed: bigint; reservePriceBinds: boolean },
  params: { targetBlobs: bigint; maxBlobs: bigint },
): bigint {
  const target = params.targetBlobs * GAS_PER_BLOB;
  if (parent.excessBlobGas + parent.blobGasUsed < target) return 0n;
  if (parent.reservePriceBinds) {
    return (
      parent.excessBlobGas + (parent.blobGasUsed * (params.maxBlobs - params.targetBlobs)) / params.maxBlobs
    );
  }
  return parent.excessBlobGas + parent.blobGasUsed - target;
}
