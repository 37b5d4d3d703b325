import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  isHex,
  parseAbi,
  parseEther,
  parseGwei,
  serializeTransaction,
} from 'viem';

/** The OP Stack GasPriceOracle predeploy, at the same address on every OP Stack chain (SPEC.md decision 6). */
export const GAS_PRICE_ORACLE_ADDRESS: Address = '0x420000000000000000000000000000000000000F';

const gasPriceOracleAbi = parseAbi(['function getL1Fee(bytes _data) view returns (uint256)']);

/**
 * An L1 data fee above this (0.05 ETH for one transfer) is a broken answer: even at the 2021 peak of L1
 * calldata prices, a ~120-byte transfer never cost that much.
 */
export const MAX_SANE_L1_FEE_WEI = parseEther('0.05');

/**
 * True when `fee` (wei) can be an L1 data fee: above 0, since it is the transfer's size times L1
 * prices that are never zero (the blob base fee is at least 1 wei), so a zero means an oracle whose
 * L1 prices are unset or broken; and at most MAX_SANE_L1_FEE_WEI.
 */
export function isSaneL1FeeWei(fee: bigint): boolean {
  return fee > 0n && fee <= MAX_SANE_L1_FEE_WEI;
}

/** The recipient of the representative ETH transfer every L2 fee figure is computed for. */
export const REPRESENTATIVE_RECIPIENT: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

// Stub values as viem's estimateL1Fee uses them: the fee depends on the byte count (and, after Fjord, on
// how well they compress), so realistic magnitudes matter and the exact values do not.
const TRANSFER = {
  to: REPRESENTATIVE_RECIPIENT,
  value: parseEther('0.1'),
  gas: 21_000n,
  maxFeePerGas: parseGwei('5'),
  maxPriorityFeePerGas: parseGwei('1'),
  nonce: 1,
} as const;

/** Raised when the oracle's answer is missing, malformed or out of range. */
export class L1FeeError extends Error {
  override name = 'L1FeeError';
}

/**
 * Serializes the representative unsigned EIP-1559 ETH transfer whose L1 data fee is served. The oracle
 * adds the signature's bytes itself, so the unsigned form is what getL1Fee expects.
 */
export function serializeRepresentativeTransfer(chainId: number): Hex {
  return serializeTransaction({ ...TRANSFER, chainId, type: 'eip1559' });
}

/** Builds the eth_call request object asking the oracle for the L1 fee of `transaction`. */
export function buildL1FeeCall(transaction: Hex): { to: Address; data: Hex } {
  const data = encodeFunctionData({ abi: gasPriceOracleAbi, functionName: 'getL1Fee', args: [transaction] });
  return { to: GAS_PRICE_ORACLE_ADDRESS, data };
}

/**
 * Decodes the oracle's answer to a fee in wei, rejecting anything that is not a sane uint256 (a zero
 * included: serving it would present the execution cost as the whole wallet fee).
 */
export function decodeL1Fee(result: unknown): bigint {
  if (typeof result !== 'string' || !isHex(result) || result.length !== 66) {
    throw new L1FeeError('getL1Fee answer is not a 32-byte word');
  }
  const fee = decodeFunctionResult({ abi: gasPriceOracleAbi, functionName: 'getL1Fee', data: result });
  if (!isSaneL1FeeWei(fee)) throw new L1FeeError('getL1Fee answer is out of range');
  return fee;
}

/** One JSON-RPC call on one provider; the answer is the raw `result`. */
export type RpcCall = (method: string, params: unknown[]) => Promise<unknown>;

/**
 * The block a contract read is asked at: `latest`, or a block number (a JSON-RPC quantity) whose head
 * was read and checked first, so the answer comes from that state (a node without it refuses).
 */
export type ReadBlock = 'latest' | Hex;

/**
 * Reads the L1 data fee (wei) of the representative transfer from the GasPriceOracle, through `call`
 * (the provider that also answered the gas price, so both figures describe the same chain state, or
 * when that call failed another one, at the block its head was checked at).
 */
export async function readL1FeeWei(
  call: RpcCall,
  chainId: number,
  block: ReadBlock = 'latest',
): Promise<bigint> {
  const request = buildL1FeeCall(serializeRepresentativeTransfer(chainId));
  return decodeL1Fee(await call('eth_call', [request, block]));
}
