import { parseEther, parseGwei } from 'viem';
import { describe, expect, it } from 'vitest';
import { computeFeesUsd, roundUsd } from '../../lib/l2/fees';
import { weiToGwei } from '../../lib/units';

describe('weiToGwei', () => {
  it('keeps sub-gwei digits down to one wei', () => {
    expect(weiToGwei(1n)).toBe(0.000000001);
    expect(weiToGwei(1_234_567n)).toBe(0.001234567);
    expect(weiToGwei(parseGwei('0.01'))).toBe(0.01);
    expect(weiToGwei(parseGwei('31.5'))).toBe(31.5);
  });
});

describe('roundUsd', () => {
  it('keeps four significant digits on sub-cent amounts', () => {
    expect(roundUsd(0.000063123)).toBe(0.00006312);
    expect(roundUsd(0.00123456)).toBe(0.001235);
  });
  it('is never coarser than a cent and keeps cents on large amounts', () => {
    expect(roundUsd(1.23456)).toBe(1.235);
    expect(roundUsd(123.456)).toBe(123.46);
    expect(roundUsd(98_765.4321)).toBe(98_765.43);
    expect(roundUsd(0)).toBe(0);
  });
});

describe('computeFeesUsd', () => {
  it('prices 21,000 gas at the gas price in the native token', () => {
    // 21,000 x 0.01 gwei = 210 gwei = 0.00000021 ETH; at $3,000 that is $0.00063.
    const fees = computeFeesUsd({
      gasPriceWei: parseGwei('0.01'),
      nativeUsd: 3000,
      ethUsd: 3000,
      hasL1DataFee: false,
      l1FeeWei: null,
      operatorFeeWei: null,
    });
    expect(fees).toEqual({
      executionGasCostUsd: 0.00063,
      l1DataFeeUsd: null,
      operatorFeeUsd: null,
      walletFeeUsd: 0.00063,
    });
  });

  it('adds the L1 data fee, priced in ETH, on OP Stack networks', () => {
    const fees = computeFeesUsd({
      gasPriceWei: parseGwei('0.0012'),
      nativeUsd: 2500,
      ethUsd: 2500,
      hasL1DataFee: true,
      l1FeeWei: parseEther('0.000001'),
      operatorFeeWei: 0n,
    });
    // 21,000 x 0.0012 gwei = 0.0000000252 ETH -> $0.000063; 0.000001 ETH -> $0.0025.
    expect(fees.executionGasCostUsd).toBe(0.000063);
    expect(fees.l1DataFeeUsd).toBe(0.0025);
    expect(fees.walletFeeUsd).toBe(0.002563);
  });

  it('serves a wallet fee equal to the two served parts added, rounding each part once', () => {
    const fees = computeFeesUsd({
      gasPriceWei: parseGwei('0.1644'),
      nativeUsd: 3012.45,
      ethUsd: 3012.45,
      hasL1DataFee: true,
      l1FeeWei: 374_450_000_000n,
      operatorFeeWei: 0n,
    });
    // $0.01040018... -> 0.0104 and $0.00112801... -> 0.001128; their sum rounded again would be 0.01153.
    expect(fees.executionGasCostUsd).toBe(0.0104);
    expect(fees.l1DataFeeUsd).toBe(0.001128);
    expect(fees.walletFeeUsd).toBe(0.011528);
  });

  it('prices a non-zero operator fee in ETH on its own, on top of the OP Stack wallet fee', () => {
    const fees = computeFeesUsd({
      gasPriceWei: parseGwei('0.0012'),
      nativeUsd: 2500,
      ethUsd: 2500,
      hasL1DataFee: true,
      l1FeeWei: parseEther('0.000001'),
      // Jovian: 21,000 gas x scalar 10 x 100 + constant 1e9 wei = 1.021e10 wei.
      operatorFeeWei: 10_210_000_000n,
    });
    // 0.00000001021 ETH at $2,500 -> $0.000025525, served as 0.00002553.
    expect(fees.operatorFeeUsd).toBe(0.00002553);
    expect(fees.l1DataFeeUsd).toBe(0.0025);
    // SPEC 2.10: execution + L1 data fee (0.000063 + 0.0025, as served); the operator fee is not in it.
    expect(fees.walletFeeUsd).toBe(0.002563);
  });

  it('keeps the L1 fee and the wallet fee when an OP Stack operator fee could not be read', () => {
    const fees = computeFeesUsd({
      gasPriceWei: parseGwei('0.001'),
      nativeUsd: 2500,
      ethUsd: 2500,
      hasL1DataFee: true,
      l1FeeWei: parseEther('0.000001'),
      operatorFeeWei: null,
    });
    expect(fees).toEqual({
      executionGasCostUsd: 0.0000525,
      l1DataFeeUsd: 0.0025,
      operatorFeeUsd: null,
      walletFeeUsd: 0.0025525,
    });
  });

  it('prices Polygon execution in POL and has no L1 fee', () => {
    const fees = computeFeesUsd({
      gasPriceWei: parseGwei('30'),
      nativeUsd: 0.2,
      ethUsd: 3000,
      hasL1DataFee: false,
      l1FeeWei: null,
      operatorFeeWei: null,
    });
    // 21,000 x 30 gwei = 0.00063 POL at $0.20.
    expect(fees).toEqual({
      executionGasCostUsd: 0.000126,
      l1DataFeeUsd: null,
      operatorFeeUsd: null,
      walletFeeUsd: 0.000126,
    });
  });

  it('leaves the wallet fee null when an OP Stack L1 fee could not be read', () => {
    const fees = computeFeesUsd({
      gasPriceWei: parseGwei('0.001'),
      nativeUsd: 2500,
      ethUsd: 2500,
      hasL1DataFee: true,
      l1FeeWei: null,
      operatorFeeWei: null,
    });
    expect(fees).toEqual({
      executionGasCostUsd: 0.0000525,
      l1DataFeeUsd: null,
      operatorFeeUsd: null,
      walletFeeUsd: null,
    });
  });

  it('gives null USD figures without a price', () => {
    const fees = computeFeesUsd({
      gasPriceWei: parseGwei('0.001'),
      nativeUsd: null,
      ethUsd: null,
      hasL1DataFee: true,
      l1FeeWei: 5n,
      operatorFeeWei: 0n,
    });
    expect(fees).toEqual({
      executionGasCostUsd: null,
      l1DataFeeUsd: null,
      operatorFeeUsd: null,
      walletFeeUsd: null,
    });
  });
});
