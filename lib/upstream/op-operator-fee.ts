import { type Address, encodeFunctionData, isHex, parseAbi, parseEther } from 'viem';
import { TRANSFER_GAS } from '../l2/fees';
import type { OperatorFeeReading } from '../l2/operator-fee';
import { GAS_PRICE_ORACLE_ADDRESS, type ReadBlock, type RpcCall } from './op-l1-fee';

/** The OP Stack L1Block predeploy, which holds the operator fee parameters since Isthmus. */
export const L1_BLOCK_ADDRESS: Address = '0x4200000000000000000000000000000000000015';
/**
 * The L1Block storage slot that packs operatorFeeConstant (uint64, bits 0-63) and operatorFeeScalar
 * (uint32, bits 64-95; Jovian's daFootprintGasScalar follows at 96-111). The execution clients read
 * the parameters from this slot themselves to charge the fee (op-geth's OperatorFeeParamsSlot), so
 * it is part of the protocol, not an accident of the contract's layout; one eth_getStorageAt gives
 * both, where their two getters took two calls.
 */
const OPERATOR_FEE_PARAMS_SLOT = '0x8';

const gasPriceOracleAbi = parseAbi(['function getOperatorFee(uint256 _gasUsed) view returns (uint256)']);

/**
 * An operator fee above this (0.05 ETH, as for the L1 data fee) for one transfer is a broken answer:
 * it would price the chain out of use. Zero is valid: the fee is 0 unless the operator sets one.
 */
const MAX_SANE_OPERATOR_FEE_WEI = parseEther('0.05');

/** True when `fee` (wei) can be the operator fee of the representative transfer: 0 to the maximum. */
export function isSaneOperatorFeeWei(fee: bigint): boolean {
  return fee >= 0n && fee <= MAX_SANE_OPERATOR_FEE_WEI;
}

/** Raised when an answer about the operator fee is missing, malformed or out of range. */
export class OperatorFeeError extends Error {
  override name = 'OperatorFeeError';
}

/** The eth_call request asking the GasPriceOracle for getOperatorFee(21000). */
function buildOperatorFeeCall(): { to: Address; data: `0x${string}` } {
  const data = encodeFunctionData({
    abi: gasPriceOracleAbi,
    functionName: 'getOperatorFee',
    args: [TRANSFER_GAS],
  });
  return { to: GAS_PRICE_ORACLE_ADDRESS, data };
}

/** One ABI-encoded unsigned word of at most `bits` bits; anything else (an empty answer too) is refused. */
function decodeUintWord(result: unknown, what: string, bits: number): bigint {
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
 * parameters from L1Block's storage, both asked in the same tick. A revert (an oracle without
 * getOperatorFee) is a failure, not a zero: both chains are past Isthmus. It is read apart from the L1
 * data fee, whose reading its failure never touches. Both are asked at `block`.
 */
export async function readOperatorFee(
  call: RpcCall,
  block: ReadBlock = 'latest',
): Promise<OperatorFeeReading> {
  // The parameters only price other gas amounts: a provider without eth_getStorageAt (or a broken
  // answer) costs those, not the transfer's fee.
  const [fee, slot] = await Promise.all([
    call('eth_call', [buildOperatorFeeCall(), block]),
    call('eth_getStorageAt', [L1_BLOCK_ADDRESS, OPERATOR_FEE_PARAMS_SLOT, block]).catch(() => null),
  ]);
  const transferFeeWei = decodeUintWord(fee, 'getOperatorFee', 256);
  if (!isSaneOperatorFeeWei(transferFeeWei))
    throw new OperatorFeeError('getOperatorFee answer is out of range');
  let params: OperatorFeeReading['params'] = null;
  try {
    const word = decodeUintWord(slot, 'operator fee parameters', 256);
    params = { scalar: (word >> 64n) & 0xffff_ffffn, constant: word & 0xffff_ffff_ffff_ffffn };
  } catch {
    // As above: no parameters, the transfer's fee stands.
  }
  return { transferFeeWei, params };
}
