import { describe, expect, it } from 'vitest';
import { readBlobFees } from '../../lib/oracle/blob-fees';
import { BPO2, computeBlobBaseFee, computeNextExcessBlobGas, GAS_PER_BLOB } from '../upstreams/blob-market';
import { getChainProfile } from '../upstreams/chain-profiles';
import { loadRealBlobBlocks } from '../upstreams/shared-data';

/** More consecutive blocks than the cycle has, so its wrap is among them. */
const BLOCKS = 4_000;
/** BPO2's steepest moves of the blob fee in one block: 7 blobs over target, and an empty block. */
const MAX_RISE = Math.exp(
  Number((BPO2.maxBlobs - BPO2.targetBlobs) * GAS_PER_BLOB) / Number(BPO2.updateFraction),
);
const MAX_FALL = Math.exp(-Number(BPO2.targetBlobs * GAS_PER_BLOB) / Number(BPO2.updateFraction));

describe('the simulated mainnet blob market (test/upstreams/chain-profiles.ts)', () => {
  it.each(['late-2023', 'sub-gwei-2026'] as const)(
    'makes every block of the %s regime a legal BPO2 update of its parent, around the whole cycle',
    (regime) => {
      const profile = getChainProfile('mainnet', regime);
      const start = 26_573_000;
      const illegal: string[] = [];
      for (let n = start; n < start + BLOCKS; n += 1) {
        const parent = profile.feesAt(n);
        const child = profile.feesAt(n + 1);
        // The fee is the one its excess gives, and the excess follows from the parent's by EIP-4844's
        // update or EIP-7918's reserve-price branch: nothing else moves it.
        expect(computeBlobBaseFee(child.excessBlobGas, BPO2.updateFraction)).toBe(child.blobBaseFee);
        const follows = [false, true].some(
          (reservePriceBinds) =>
            computeNextExcessBlobGas({ ...parent, reservePriceBinds }, BPO2) === child.excessBlobGas,
        );
        const step = Number(child.blobBaseFee) / Number(parent.blobBaseFee);
        if (!follows || step > MAX_RISE * 1.000_001 || step < MAX_FALL / 1.000_001) {
          illegal.push(`${n + 1}: ${parent.blobBaseFee} -> ${child.blobBaseFee} wei (x${step.toFixed(4)})`);
        }
        expect(child.blobGasUsedRatio).toBe(Number(child.blobGasUsed) / Number(BPO2.maxBlobs * GAS_PER_BLOB));
      }
      expect(illegal).toEqual([]);
    },
  );

  it('follows the real blocks of 2026-01-19 from the cycle start, within 1 % of their blob fee', () => {
    const profile = getChainProfile('mainnet', 'sub-gwei-2026');
    const real = loadRealBlobBlocks().slice(0, 720);
    expect(profile.feesAt(0).blobBaseFee).toBe(real[0]!.blobBaseFee);
    const far = real.filter((block, i) => {
      const ratio = Number(profile.feesAt(i).blobBaseFee) / Number(block.blobBaseFee);
      return ratio > 1.01 || ratio < 0.99;
    });
    expect(far).toEqual([]);
  });

  it('gives the service fee histories it accepts, every window of the cycle', () => {
    const profile = getChainProfile('mainnet', 'sub-gwei-2026');
    for (let newest = 20; newest < BLOCKS; newest += 1) {
      const window = Array.from({ length: 21 }, (_, i) => profile.feesAt(newest - 19 + i));
      const history = {
        oldestBlock: BigInt(newest - 19),
        baseFeePerGas: window.map((b) => b.baseFee),
        gasUsedRatio: window.slice(0, 20).map((b) => b.gasUsedRatio),
        reward: window.slice(0, 20).map(() => [1n]),
        baseFeePerBlobGas: window.map((b) => b.blobBaseFee),
        blobGasUsedRatio: window.slice(0, 20).map((b) => b.blobGasUsedRatio),
      };
      const newestBlock = window[19]!;
      expect(() =>
        readBlobFees(history, newestBlock.blobBaseFee, {
          blobGasUsed: newestBlock.blobGasUsed,
          excessBlobGas: newestBlock.excessBlobGas,
        }),
      ).not.toThrow();
    }
  });
});
