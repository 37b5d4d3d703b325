import { decodeFunctionData, type Hex, parseAbi, parseEther, parseTransaction, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  buildL1FeeCall,
  decodeL1Fee,
  GAS_PRICE_ORACLE_ADDRESS,
  L1FeeError,
  MAX_SANE_L1_FEE_WEI,
  readL1FeeWei,
  serializeRepresentativeTransfer,
} from '../../lib/upstream/op-l1-fee';

const abi = parseAbi(['function getL1Fee(bytes _data) view returns (uint256)']);
const word = (value: bigint) => toHex(value, { size: 32 });

describe('serializeRepresentativeTransfer', () => {
  it('is an unsigned EIP-1559 ETH transfer of 21,000 gas on the given chain', () => {
    const bytes = serializeRepresentativeTransfer(8453);
    expect(bytes.startsWith('0x02')).toBe(true);
    const tx = parseTransaction(bytes);
    expect(tx).toMatchObject({ type: 'eip1559', chainId: 8453, gas: 21_000n, value: parseEther('0.1') });
    expect(tx.to).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(tx.r).toBeUndefined();
    expect(tx.data).toBeUndefined();
  });
});

describe('buildL1FeeCall', () => {
  it('calls getL1Fee(bytes) on the GasPriceOracle predeploy with the transaction bytes', () => {
    const bytes = serializeRepresentativeTransfer(10);
    const call = buildL1FeeCall(bytes);
    expect(call.to).toBe('0x420000000000000000000000000000000000000F');
    expect(call.to).toBe(GAS_PRICE_ORACLE_ADDRESS);
    const decoded = decodeFunctionData({ abi, data: call.data });
    expect(decoded.functionName).toBe('getL1Fee');
    expect(decoded.args[0]).toBe(bytes);
  });
});

describe('decodeL1Fee', () => {
  it('reads a uint256 word as wei', () => {
    expect(decodeL1Fee(word(123_456_789n))).toBe(123_456_789n);
    expect(decodeL1Fee(word(1n))).toBe(1n);
  });
  it.each([
    ['a non-string', 42],
    ['an empty answer', '0x'],
    ['a truncated word', '0x0000000000000000000000000000000000000000000000000000000000075b'],
    ['non-hex text', `0x${'zz'.repeat(32)}`],
    ['null', null],
  ])('rejects %s', (_label, value) => {
    expect(() => decodeL1Fee(value)).toThrow(L1FeeError);
  });
  it('rejects a zero fee: L1 prices are never zero, so the oracle is unset or broken', () => {
    expect(() => decodeL1Fee(word(0n))).toThrow(L1FeeError);
  });
  it('rejects an absurd fee', () => {
    expect(() => decodeL1Fee(word(MAX_SANE_L1_FEE_WEI + 1n))).toThrow(L1FeeError);
  });
});

describe('readL1FeeWei', () => {
  it('asks eth_call at the latest block and decodes the answer', async () => {
    const seen: Array<{ method: string; params: unknown[] }> = [];
    const fee = await readL1FeeWei(async (method, params) => {
      seen.push({ method, params });
      return word(987n);
    }, 10);
    expect(fee).toBe(987n);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe('eth_call');
    const [request, block] = seen[0]!.params as [{ to: string; data: Hex }, string];
    expect(block).toBe('latest');
    expect(request).toEqual(buildL1FeeCall(serializeRepresentativeTransfer(10)));
  });
});
