import { type Address, encodeFunctionData, isHex, parseAbi, parseEther } from 'viem';
import { TRANSFER_GAS } from '../l2/fees';
import type { OperatorFeeReading } from '../l2/operator-fee';
import { GAS_PRICE_ORACLE_ADDRESS, type RpcCall } from './op-l1-fee';

/** The OP Stack L1Block predeploy, which holds the operator fee parameters since Isthmus. */
export const L1_BLOCK_ADDRESS: Address = '0x4200000000000000000000000000000000000015';

const gasPriceOracleAbi = parseAbi(['function getOperatorFee(uint256 _gasUsed) view returns (uint256)']);
const l1BlockAbi = parseAbi([
  'function operatorFeeScalar() view returns (uint32)',
  'function operatorFeeConstant() view returns (uint64)',
]);

/**
 * An operator fee above this (0.05 ETH, as for the L1 data fee) for one transfer is a broken answer:
 * it would price the chain out of use. Zero is valid: the fee is 0 unless the operator sets one.
 */
export const MAX_SANE_OPERATOR_FEE_WEI = parseEther('0.05');

/** True when `fee` (wei) can be the operator fee of the representative transfer: 0 to the maximum. */
export function isSaneOperatorFeeWei(fee: bigint): boolean {
  return fee >= 0n && fee <= MAX_SANE_OPERATOR_FEE_WEI;
}

/** Raised when an answer about the operator fee is missing, malformed or out of range. */
export class OperatorFeeError extends Error {
  override name = 'OperatorFeeError';
}

/** The three eth_call requests: getOperatorFee(21000) on the oracle, the scalar and constant on L1Block. */
export function buildOperatorFeeCalls(): { to: Address; data: `0x${string}` }[] {
  return [
    {
      to: GAS_PRICE_ORACLE_ADDRESS,
      data: encodeFunctionData({
        abi: gasPriceOracleAbi,
        functionName: 'getOperatorFee',
        args: [TRANSFER_GAS],
      }),
    },
    {
      to: L1_BLOCK_ADDRESS,
      data: encodeFunctionData({ abi: l1BlockAbi, functionName: 'operatorFeeScalar' }),
    },
    {
      to: L1_BLOCK_ADDRESS,
      data: encodeFunctionData({ abi: l1BlockAbi, functionName: 'operatorFeeConstant' }),
    },
  ];
}

/** One ABI-encoded unsigned word of at most `bits` bits; anything else (an empty answer too) is refused. */
export function decodeUintWord(result: unknown, what: string, bits: number): bigint {
  if (typeof result !== 'string' || !isHex(result) || result.length !== 66) {
    throw new OperatorFeeError(`${what} answer is not a 32-byte word`);
  }
  const value = BigInt(result);
  if (value >= 1n << BigInt(bits)) throw new OperatorFeeError(`${what} answer is out of range`);
  return value;
}

/**
 * Reads, through `call`, the operator fee of the representative transfer: the GasPriceOracle's
 * getOperatorFee(21000), exact to the wei whichever formula the chain's fork applies, and the
 * parameters from L1Block, all asked in the same tick. A revert (an oracle without getOperatorFee) is
 * a failure, not a zero: both chains are past Isthmus. It is read apart from the L1 data fee, whose
 * reading its failure never touches.
 */
export async function readOperatorFee(call: RpcCall): Promise<OperatorFeeReading> {
  const [fee, scalar, constant] = await Promise.all(
    buildOperatorFeeCalls().map((request) => call('eth_call', [request, 'latest'])),
  );
  const transferFeeWei = decodeUintWord(fee, 'getOperatorFee', 256);
  if (!isSaneOperatorFeeWei(transferFeeWei))
    throw new OperatorFeeError('getOperatorFee answer is out of range');
  return {
    transferFeeWei,
    params: {
      scalar: decodeUintWord(scalar, 'operatorFeeScalar', 32),
      constant: decodeUintWord(constant, 'operatorFeeConstant', 64),
    },
  };
}
