import { z } from 'zod';
import type { FeeHistory } from '../oracle/fee-history';
import { RpcAttemptError } from './rpc-errors';

const quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}$/)
  .transform((hex) => BigInt(hex));

/** `eth_feeHistory` as JSON-RPC sends it, blob fields included (viem's formatter drops them). */
const FeeHistoryWireSchema = z.object({
  oldestBlock: quantity,
  baseFeePerGas: z.array(quantity),
  gasUsedRatio: z.array(z.number()),
  reward: z.array(z.array(quantity)).optional(),
  baseFeePerBlobGas: z.array(quantity).optional(),
  blobGasUsedRatio: z.array(z.number()).optional(),
});

/**
 * Decodes a raw `eth_feeHistory` result to wei, keeping the EIP-4844 fields when the node sends them.
 * Throws a `malformed` RpcAttemptError for anything that is not the wire format; the values are
 * checked for sense later (assertFeeHistoryShape, readBlobFees).
 */
export function parseFeeHistory(raw: unknown): FeeHistory {
  const parsed = FeeHistoryWireSchema.safeParse(raw);
  if (!parsed.success) throw new RpcAttemptError('malformed', 'fee history is not the wire format');
  const { reward, baseFeePerBlobGas, blobGasUsedRatio, ...rest } = parsed.data;
  return {
    ...rest,
    reward: reward ?? [],
    ...(baseFeePerBlobGas ? { baseFeePerBlobGas } : {}),
    ...(blobGasUsedRatio ? { blobGasUsedRatio } : {}),
  };
}
