import { decodeFunctionData, encodeFunctionResult, type Hex, parseAbi, parseGwei } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  ArbL1GasError,
  NODE_INTERFACE_ADDRESS,
  readArbitrumL1Component,
} from '../../lib/upstream/arb-l1-gas';

const abi = parseAbi([
  'function gasEstimateL1Component(address to, bool contractCreation, bytes data) payable returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)',
]);
const answer = (units: bigint, baseFee: bigint) =>
  encodeFunctionResult({
    abi,
    functionName: 'gasEstimateL1Component',
    result: [units, baseFee, parseGwei('0.05')],
  });
const saneUnder1000Gwei = (wei: bigint) => wei <= parseGwei('1000');

describe('readArbitrumL1Component', () => {
  it('keeps the gas units and the L2 base fee the NodeInterface computed them with', async () => {
    const seen: unknown[][] = [];
    const component = await readArbitrumL1Component(async (method, params) => {
      seen.push([method, ...params]);
      return answer(9_412n, parseGwei('0.0097'));
    }, saneUnder1000Gwei);
    expect(component).toEqual({ gasUnits: 9_412n, baseFeeWei: parseGwei('0.0097') });
    const [method, request, block] = seen[0] as [string, { to: string; data: Hex }, string];
    expect([method, request.to, block]).toEqual(['eth_call', NODE_INTERFACE_ADDRESS, 'latest']);
    expect(decodeFunctionData({ abi, data: request.data }).functionName).toBe('gasEstimateL1Component');
  });

  it.each([
    ['a zero base fee, which could not have priced the units', answer(9_412n, 0n)],
    ['a base fee outside the network range', answer(9_412n, parseGwei('5000'))],
    ['more units than a block holds', answer(32_000_001n, parseGwei('0.01'))],
    ['one word', `0x${'00'.repeat(32)}`],
  ])('rejects %s', async (_label, result) => {
    await expect(readArbitrumL1Component(async () => result, saneUnder1000Gwei)).rejects.toThrow(
      ArbL1GasError,
    );
  });
});
