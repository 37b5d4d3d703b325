import { type Address, decodeFunctionResult, encodeFunctionData, isHex, parseAbi } from 'viem';
import type { ReadBlock, RpcCall } from './op-l1-fee';
import { REPRESENTATIVE_RECIPIENT } from './op-l1-fee';

/** Arbitrum's NodeInterface, a virtual contract Nitro answers on eth_call (SPEC.md extension 17). */
export const NODE_INTERFACE_ADDRESS: Address = '0x00000000000000000000000000000000000000C8';

const nodeInterfaceAbi = parseAbi([
  'function gasEstimateL1Component(address to, bool contractCreation, bytes data) payable returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)',
]);

/**
 * More L1 gas units than Arbitrum's 32 million per-block gas limit cannot be a transfer's L1
 * component: the answer is broken.
 */
export const MAX_SANE_L1_GAS_UNITS = 32_000_000n;

/** Raised when the NodeInterface's answer is missing, malformed or out of range. */
export class ArbL1GasError extends Error {
  override name = 'ArbL1GasError';
}

/**
 * Arbitrum's L1 component of the representative transfer as Nitro estimates it: `gasUnits` is its
 * padded L1 posting cost (the L1 price estimate plus 10 %, GasEstimationL1PricePadding) divided by
 * `baseFeeWei`, the L2 base fee it divided by, which is also the price Nitro charges every gas unit at.
 */
export interface ArbL1Component {
  gasUnits: bigint;
  baseFeeWei: bigint;
}

/**
 * Reads, through `call` (the provider that also answered the gas price, or when its call failed
 * another one), Arbitrum's L1 component of the representative ETH transfer: NodeInterface.gasEstimateL1Component(to, false, 0x) at 0x...C8,
 * keeping both the gas units and the L2 base fee it returns, asked at `block`. `isSaneBaseFee` checks
 * the base fee (the network's sane gas-price range); a zero one could not have priced the units.
 */
export async function readArbitrumL1Component(
  call: RpcCall,
  isSaneBaseFee: (wei: bigint) => boolean,
  block: ReadBlock = 'latest',
): Promise<ArbL1Component> {
  const data = encodeFunctionData({
    abi: nodeInterfaceAbi,
    functionName: 'gasEstimateL1Component',
    args: [REPRESENTATIVE_RECIPIENT, false, '0x'],
  });
  const result = await call('eth_call', [{ to: NODE_INTERFACE_ADDRESS, data }, block]);
  if (typeof result !== 'string' || !isHex(result) || result.length !== 2 + 64 * 3) {
    throw new ArbL1GasError('gasEstimateL1Component answer is not three words');
  }
  const [gasUnits, baseFeeWei] = decodeFunctionResult({
    abi: nodeInterfaceAbi,
    functionName: 'gasEstimateL1Component',
    data: result,
  });
  if (gasUnits > MAX_SANE_L1_GAS_UNITS)
    throw new ArbL1GasError('gasEstimateL1Component answer is out of range');
  if (baseFeeWei === 0n || !isSaneBaseFee(baseFeeWei)) {
    throw new ArbL1GasError('gasEstimateL1Component base fee is out of range');
  }
  return { gasUnits, baseFeeWei };
}
