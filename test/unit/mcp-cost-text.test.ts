// The MCP cost summary is what an agent relays to send a transaction: its prices per gas must be the
// served ones to the wei, at any size (SPEC 16: full precision down to 1 wei).
import { describe, expect, it } from 'vitest';
import { describeCost } from '../../lib/mcp/tools/transaction-cost-text';
import { weiToGwei } from '../../lib/units';

const amount = { wei: '25926000000000000', native: 0.025926, gwei: 25_926_000, usd: null };

describe('describeCost', () => {
  it.each([
    [1_234_567_891_234n, 12_345_678_901n],
    [60_000_000_001n, 1n],
    [1n, 1n],
  ])('names maxFeePerGas %s wei and maxPriorityFeePerGas %s wei exactly', (maxFeeWei, tipWei) => {
    const maxFeePerGas = weiToGwei(maxFeeWei);
    const maxPriorityFeePerGas = weiToGwei(tipWei);
    const text = describeCost({
      networkName: 'Ethereum mainnet',
      nativeToken: 'ETH',
      gasLimit: 21_000,
      tier: 'high',
      gasPriceGwei: maxFeePerGas,
      execution: amount,
      l1DataFee: null,
      blobFee: null,
      total: amount,
      feeCompleteness: 'full_estimate',
      maxFeePerGas,
      maxPriorityFeePerGas,
      expectedWaitSeconds: { p50: 12, p90: 24 },
    });
    const sent = /Send with maxFeePerGas ([\d.]+) and maxPriorityFeePerGas ([\d.]+) gwei/.exec(text);
    expect(sent).not.toBeNull();
    expect(Number(sent![1])).toBe(maxFeePerGas);
    expect(Number(sent![2])).toBe(maxPriorityFeePerGas);
    expect(text).toContain(`the high tier, ${sent![1]} gwei`);
  });
});
