import { brotliCompressSync, constants } from 'node:zlib';
import { decodeFunctionData, encodeFunctionResult, type Hex, hexToBytes, parseAbi } from 'viem';

/** Arbitrum Nitro's NodeInterface, a virtual contract only eth_call and eth_estimateGas reach. */
export const NODE_INTERFACE = '0x00000000000000000000000000000000000000c8';

const nodeInterfaceAbi = parseAbi([
  'function gasEstimateL1Component(address to, bool contractCreation, bytes data) payable returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)',
  'function gasEstimateComponents(address to, bool contractCreation, bytes data) payable returns (uint64 gasEstimate, uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)',
]);

/** What Nitro's L1 pricing holds for the estimate. */
export interface ArbL1Pricing {
  /** L2 base fee (wei per gas). */
  baseFee: bigint;
  /** ArbOS's L1 price per calldata unit (wei), its estimate of the L1 base fee. */
  l1PricePerUnit: bigint;
}

// Nitro: a posting costs 16 units per byte of the Brotli-compressed transaction plus a fixed 140 bytes,
// and estimates are padded by 10 % (GasEstimationL1PricePadding = 11000 bips).
const TX_FIXED_BYTES = 140n;
const PADDING_BIPS = 11_000n;
// The signed transaction Nitro prices also carries nonce, gas fields and a signature: about 100 bytes.
const SIGNED_TX_OVERHEAD = 100;

/**
 * The gas units Nitro charges for the L1 component of a transaction to `to` with `data`: its posting
 * cost (Brotli size + 140 bytes, 16 units a byte, at the L1 price, padded 10 %) divided by the L2 base
 * fee. Follows nodeInterface.go's gasEstimateL1Component in shape; the signed-transaction overhead is
 * approximated, so the figure is plausible rather than Nitro's to the unit.
 */
export function computeL1GasEstimate(to: Hex, data: Hex, pricing: ArbL1Pricing): bigint {
  const raw = Buffer.concat([Buffer.alloc(SIGNED_TX_OVERHEAD, 1), hexToBytes(to), hexToBytes(data)]);
  const compressed = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 0 } }).length;
  const units = (BigInt(compressed) + TX_FIXED_BYTES) * 16n;
  const posterCost = (units * pricing.l1PricePerUnit * PADDING_BIPS) / 10_000n;
  return pricing.baseFee === 0n ? 0n : posterCost / pricing.baseFee;
}

/** Answers an eth_call to the NodeInterface (ABI-encoded), or null for a selector it does not have. */
export function callNodeInterface(
  data: Hex,
  pricing: ArbL1Pricing,
  override: bigint | undefined,
): Hex | null {
  let call: ReturnType<typeof decodeFunctionData<typeof nodeInterfaceAbi>>;
  try {
    call = decodeFunctionData({ abi: nodeInterfaceAbi, data });
  } catch {
    return null;
  }
  const [to, , callData] = call.args;
  const l1Gas = override ?? computeL1GasEstimate(to, callData, pricing);
  if (call.functionName === 'gasEstimateL1Component') {
    return encodeFunctionResult({
      abi: nodeInterfaceAbi,
      functionName: 'gasEstimateL1Component',
      result: [l1Gas, pricing.baseFee, pricing.l1PricePerUnit],
    });
  }
  return encodeFunctionResult({
    abi: nodeInterfaceAbi,
    functionName: 'gasEstimateComponents',
    result: [21_000n + l1Gas, l1Gas, pricing.baseFee, pricing.l1PricePerUnit],
  });
}
