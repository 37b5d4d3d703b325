import { decodeFunctionData, type Hex, parseAbi, parseEther, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { computeOperatorFeeWei } from '../../lib/l2/operator-fee';
import { GAS_PRICE_ORACLE_ADDRESS } from '../../lib/upstream/op-l1-fee';
import { L1_BLOCK_ADDRESS, OperatorFeeError, readOperatorFee } from '../../lib/upstream/op-operator-fee';

const abi = parseAbi(['function getOperatorFee(uint256 _gasUsed) view returns (uint256)']);
const word = (value: bigint) => toHex(value, { size: 32 });
/** L1Block's slot 8 as a chain packs it: constant in bits 0-63, scalar in 64-95, anything above. */
const packed = (scalar: bigint, constant: bigint, above = 0n) =>
  word((above << 96n) | (scalar << 64n) | constant);

/** An RPC answering getOperatorFee and L1Block's storage, recording what was asked. */
function oracle(answers: { getOperatorFee?: unknown; slot?: unknown }) {
  const seen: unknown[][] = [];
  const call = async (method: string, params: unknown[]) => {
    seen.push([method, ...params]);
    const answer = method === 'eth_call' ? answers.getOperatorFee : answers.slot;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { call, seen };
}

describe('computeOperatorFeeWei', () => {
  it("returns the oracle's own answer for the 21,000-gas transfer, whatever the parameters", () => {
    expect(
      computeOperatorFeeWei(21_000n, { transferFeeWei: 123n, params: { scalar: 9n, constant: 0n } }),
    ).toBe(123n);
  });

  it('applies the Isthmus formula (gas x scalar / 1e6 + constant, rounded down) when it matches', () => {
    const params = { scalar: 1_234_567n, constant: 1_000_000_007n };
    // 21,000 x 1,234,567 / 1e6 = 25,925.907 -> 25,925.
    const reading = { transferFeeWei: 1_000_025_932n, params };
    expect(computeOperatorFeeWei(100_000n, reading)).toBe(123_456n + 1_000_000_007n);
    // 810 x 1,234,567 / 1e6 = 999.999 -> 999: rounded down, as the contract divides.
    expect(computeOperatorFeeWei(810n, reading)).toBe(999n + 1_000_000_007n);
  });

  it('applies the Jovian formula (gas x scalar x 100 + constant) when it matches', () => {
    const reading = { transferFeeWei: 2_506_300_000n, params: { scalar: 3n, constant: 2_500_000_000n } };
    expect(computeOperatorFeeWei(500_000n, reading)).toBe(500_000n * 3n * 100n + 2_500_000_000n);
  });

  it('gives the constant at any gas when the scalar is 0 (both formulas agree), and 0 with no fee set', () => {
    expect(
      computeOperatorFeeWei(30_000_000n, { transferFeeWei: 42n, params: { scalar: 0n, constant: 42n } }),
    ).toBe(42n);
    expect(computeOperatorFeeWei(77_777n, { transferFeeWei: 0n, params: { scalar: 0n, constant: 0n } })).toBe(
      0n,
    );
  });

  it("is null, not a guess, when neither formula gives the oracle's answer", () => {
    expect(
      computeOperatorFeeWei(50_000n, {
        transferFeeWei: 999n,
        params: { scalar: 3n, constant: 2_500_000_000n },
      }),
    ).toBeNull();
  });
});

describe('computeOperatorFeeWei without parameters', () => {
  it("prices only the transfer: other gas amounts' fees are unknown", () => {
    const reading = { transferFeeWei: 123n, params: null };
    expect(computeOperatorFeeWei(21_000n, reading)).toBe(123n);
    expect(computeOperatorFeeWei(100_000n, reading)).toBeNull();
  });
});

describe('readOperatorFee', () => {
  it("asks getOperatorFee(21000) of the GasPriceOracle and L1Block's parameter slot, in two calls", async () => {
    const { call, seen } = oracle({
      getOperatorFee: word(2_506_300_000n),
      slot: packed(3n, 2_500_000_000n, 400n),
    });
    // Jovian's daFootprintGasScalar (400) above the scalar is not part of it.
    expect(await readOperatorFee(call)).toEqual({
      transferFeeWei: 2_506_300_000n,
      params: { scalar: 3n, constant: 2_500_000_000n },
    });
    expect(seen).toEqual([
      ['eth_call', { to: GAS_PRICE_ORACLE_ADDRESS, data: expect.stringMatching(/^0x/) }, 'latest'],
      ['eth_getStorageAt', L1_BLOCK_ADDRESS, '0x8', 'latest'],
    ]);
    const [, request] = seen[0] as [string, { data: Hex }];
    expect(decodeFunctionData({ abi, data: request.data }).args).toEqual([21_000n]);
  });

  it('takes the widest parameters their types allow (uint32 scalar, uint64 constant)', async () => {
    const { call } = oracle({ getOperatorFee: word(1n), slot: packed(2n ** 32n - 1n, 2n ** 64n - 1n) });
    expect((await readOperatorFee(call)).params).toEqual({
      scalar: 2n ** 32n - 1n,
      constant: 2n ** 64n - 1n,
    });
  });

  it('takes a zero fee as the valid answer of a chain whose operator sets none', async () => {
    const { call } = oracle({ getOperatorFee: word(0n), slot: word(0n) });
    expect((await readOperatorFee(call)).transferFeeWei).toBe(0n);
  });

  it('fails on a revert (an oracle without getOperatorFee): a fault, not a zero', async () => {
    const revert = Object.assign(new Error('execution reverted'), { code: 3 });
    const { call } = oracle({ getOperatorFee: revert, slot: word(0n) });
    await expect(readOperatorFee(call)).rejects.toThrow('execution reverted');
  });

  it.each([
    ['an empty answer (no code at the address)', { getOperatorFee: '0x' }],
    ['a truncated word', { getOperatorFee: word(5n).slice(0, 40) }],
    ['null', { getOperatorFee: null }],
    ['an absurd fee', { getOperatorFee: word(parseEther('0.05') + 1n) }],
  ])('rejects %s', async (_label, bad) => {
    const { call } = oracle({ slot: packed(0n, 1n), ...bad });
    await expect(readOperatorFee(call)).rejects.toThrow(OperatorFeeError);
  });

  it.each([
    ['a storage answer that is not a 32-byte word', '0x1'],
    ['no storage answer', null],
    [
      'a refused eth_getStorageAt (missing method)',
      Object.assign(new Error('method not found'), { code: -32601 }),
    ],
  ])("keeps the transfer's fee without parameters on %s", async (_label, slot) => {
    const { call } = oracle({ getOperatorFee: word(7n), slot });
    expect(await readOperatorFee(call)).toEqual({ transferFeeWei: 7n, params: null });
  });
});
