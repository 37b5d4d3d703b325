import type { EthereumProvider } from 'hardhat/types/providers';
import { toHex } from 'viem';

/** The L1Block predeploy, whose storage the GasPriceOracle reads its L1 prices and scalars from. */
export const L1_BLOCK_ADDRESS = '0x4200000000000000000000000000000000000015';

/** The L1 facts the OP Stack fee formula (Ecotone/Fjord) uses. */
export interface L1OracleState {
  l1BaseFee: bigint;
  blobBaseFee: bigint;
  baseFeeScalar: number;
  blobBaseFeeScalar: number;
}

/**
 * Writes L1 prices and fee scalars into the L1Block predeploy, as the sequencer's L1-attributes
 * deposit does on a real chain every block. EDR's genesis leaves the scalars at zero for the
 * contract, which would make every L1 fee zero and the test unable to tell a right fee from a wrong one.
 * Storage layout of L1Block (contracts-bedrock): slot 1 basefee; slot 3 packs sequenceNumber (bits
 * 0-63), blobBaseFeeScalar (64-95) and baseFeeScalar (96-127); slot 7 blobBaseFee.
 */
export async function setL1OracleState(provider: EthereumProvider, state: L1OracleState): Promise<void> {
  const set = (slot: number, value: bigint) =>
    provider.request({
      method: 'hardhat_setStorageAt',
      params: [L1_BLOCK_ADDRESS, toHex(slot), toHex(value, { size: 32 })],
    });
  const packed = (BigInt(state.baseFeeScalar) << 96n) | (BigInt(state.blobBaseFeeScalar) << 64n) | 1n;
  await set(1, state.l1BaseFee);
  await set(3, packed);
  await set(7, state.blobBaseFee);
}

/**
 * Writes the operator fee parameters into L1Block, as the L1-attributes deposit does since Isthmus:
 * slot 8 packs operatorFeeConstant (uint64, bits 0-63) and operatorFeeScalar (uint32, bits 64-95).
 */
export async function setOperatorFeeParams(
  provider: EthereumProvider,
  params: { scalar: bigint; constant: bigint },
): Promise<void> {
  await provider.request({
    method: 'hardhat_setStorageAt',
    params: [L1_BLOCK_ADDRESS, toHex(8), toHex((params.scalar << 64n) | params.constant, { size: 32 })],
  });
}
