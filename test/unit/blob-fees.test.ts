import { describe, expect, it } from 'vitest';
import { readBlobFees } from '../../lib/oracle/blob-fees';
import { type FeeHistory, OracleError } from '../../lib/oracle/fee-history';
import {
  BPO1,
  BPO2,
  computeBlobBaseFee,
  computeNextExcessBlobGas,
  GAS_PER_BLOB,
} from '../upstreams/blob-market';
import { loadRealBlobBlocks } from '../upstreams/shared-data';

const blocks = loadRealBlobBlocks();
const MAX_BLOB_GAS = Number(BPO2.maxBlobs * GAS_PER_BLOB);

/** A fee history over real blocks [from, from + count), blob fields as a BPO2 node reports them. */
function realHistory(
  from: number,
  count: number,
): { history: FeeHistory; header: { blobGasUsed: bigint; excessBlobGas: bigint } } {
  const window = blocks.slice(from, from + count + 1);
  const newest = window[count - 1]!;
  return {
    history: {
      oldestBlock: BigInt(window[0]!.number),
      baseFeePerGas: window.map(() => 100_000_000n),
      gasUsedRatio: window.slice(0, count).map(() => 0.5),
      reward: window.slice(0, count).map(() => [1n]),
      baseFeePerBlobGas: window.map((b) => b.blobBaseFee),
      blobGasUsedRatio: window.slice(0, count).map((b) => Number(b.blobGasUsed) / MAX_BLOB_GAS),
    },
    header: { blobGasUsed: newest.blobGasUsed, excessBlobGas: newest.excessBlobGas },
  };
}

describe('the blob fee formula on real mainnet blocks (BPO2, 2026-01-19 to 21)', () => {
  it("reproduces every block's blob base fee from its excess blob gas with BPO2's update fraction", () => {
    expect(blocks.length).toBeGreaterThan(10_000);
    const wrong = blocks.filter(
      (b) => computeBlobBaseFee(b.excessBlobGas, BPO2.updateFraction) !== b.blobBaseFee,
    );
    expect(wrong).toEqual([]);
  });

  it("reproduces every next block's excess blob gas, EIP-7918's reserve-price branch included", () => {
    const counts = { reserve: 0, normal: 0, wrong: 0 };
    for (let i = 0; i + 1 < blocks.length; i += 1) {
      const parent = blocks[i]!;
      const child = blocks[i + 1]!;
      if (child.number !== parent.number + 1) continue;
      // The flag is the child's: which branch produced its excess. Unflagged pairs must agree both ways.
      const branches = child.eip7918 === null ? [true, false] : [child.eip7918];
      for (const reservePriceBinds of branches) {
        const next = computeNextExcessBlobGas({ ...parent, reservePriceBinds }, BPO2);
        if (next !== child.excessBlobGas) counts.wrong += 1;
      }
      if (child.eip7918 === true) counts.reserve += 1;
      if (child.eip7918 === false) counts.normal += 1;
    }
    expect(counts.wrong).toBe(0);
    // Both branches occur in these days, so both are checked.
    expect(counts.reserve).toBeGreaterThan(10_000);
    expect(counts.normal).toBeGreaterThan(1_000);
  });
});

describe('readBlobFees', () => {
  it("serves the newest and next blocks' blob base fees and the window's mean usage, no fork table", () => {
    const { history, header } = realHistory(100, 20);
    const fees = readBlobFees(history, blocks[120]!.blobBaseFee, header);
    expect(fees).toMatchObject({
      blobBaseFee: blocks[119]!.blobBaseFee,
      nextBlobBaseFee: blocks[120]!.blobBaseFee,
    });
    const mean = blocks.slice(100, 120).reduce((s, b) => s + Number(b.blobGasUsed), 0) / 20 / MAX_BLOB_GAS;
    expect(fees?.blobGasUsedRatio).toBeCloseTo(mean, 12);
  });

  it('derives the per-block blob maximum (21 under BPO2) from the newest block', () => {
    const index = blocks.findIndex((b, i) => i > 20 && b.blobGasUsed > 0n);
    const { history, header } = realHistory(index - 19, 20);
    expect(readBlobFees(history, null, header)?.maxBlobsPerBlock).toBe(21);
  });

  it("accepts eth_blobBaseFee answering the head's fee (geth) as well as the next block's (the spec)", () => {
    const { history, header } = realHistory(200, 20);
    expect(readBlobFees(history, blocks[219]!.blobBaseFee, header)?.nextBlobBaseFee).toBe(
      blocks[220]!.blobBaseFee,
    );
  });

  it("is null without any blob data, and takes eth_blobBaseFee alone as the newest block's fee", () => {
    const { history, header } = realHistory(0, 20);
    const { baseFeePerBlobGas: _, blobGasUsedRatio: __, ...plain } = history;
    expect(readBlobFees(plain, null, { blobGasUsed: undefined, excessBlobGas: undefined })).toBeNull();
    expect(readBlobFees(plain, 12_345n, header)).toEqual({
      blobBaseFee: 12_345n,
      nextBlobBaseFee: null,
      blobGasUsedRatio: null,
      maxBlobsPerBlock: null,
    });
  });

  /**
   * The same real blocks as if BPO2 activated at window block `forkAt`: blocks before it priced with
   * BPO1's update fraction, the rest with BPO2's, the excess blob gas unchanged (as at the real fork).
   */
  function forkHistory(forkAt: number) {
    const { history, header } = realHistory(400, 20);
    const window = blocks.slice(400, 421);
    const baseFeePerBlobGas = window.map((b, i) =>
      i < forkAt ? computeBlobBaseFee(b.excessBlobGas, BPO1.updateFraction) : b.blobBaseFee,
    );
    return { history: { ...history, baseFeePerBlobGas }, header };
  }

  it.each([
    ['mid-window', 8],
    ['at the next block (the fork its first block)', 20],
  ])('accepts the one-block fall of a blob-parameter fork %s (BPO1 to BPO2)', (_, forkAt) => {
    const { history, header } = forkHistory(forkAt);
    const fees = history.baseFeePerBlobGas!;
    // The fork's own step falls far past the within-fork bound (mainnet's BPO2 hour: 1.69M to 32,568 wei).
    expect(fees[forkAt - 1]! / fees[forkAt]!).toBeGreaterThan(10n);
    expect(readBlobFees(history, null, header)).toMatchObject({
      blobBaseFee: fees[19],
      nextBlobBaseFee: fees[20],
    });
  });

  it.each([
    ['an eth_blobBaseFee matching neither block', (h: FeeHistory) => h, 999n, {}],
    [
      'a blob fee above 100,000 gwei',
      (h: FeeHistory) => ({ ...h, baseFeePerBlobGas: h.baseFeePerBlobGas!.map(() => 10n ** 15n) }),
      null,
      {},
    ],
    [
      'a zero blob fee',
      (h: FeeHistory) => ({ ...h, baseFeePerBlobGas: h.baseFeePerBlobGas!.map(() => 0n).with(0, 5n) }),
      null,
      {},
    ],
    [
      'a usage ratio above 1',
      (h: FeeHistory) => ({ ...h, blobGasUsedRatio: h.blobGasUsedRatio!.with(3, 1.5) }),
      null,
      {},
    ],
    [
      'a blob fee jumping 10x in a block',
      (h: FeeHistory) => ({
        ...h,
        baseFeePerBlobGas: h.baseFeePerBlobGas!.with(5, h.baseFeePerBlobGas![5]! * 10n),
      }),
      null,
      {},
    ],
    [
      'a newest blob fee falling to 1 wei (deeper than a fork takes it)',
      (h: FeeHistory) => ({ ...h, baseFeePerBlobGas: h.baseFeePerBlobGas!.with(-1, 1n) }),
      null,
      {},
    ],
    [
      'a blob fee falling 10x twice in one window (one fork, not two)',
      (h: FeeHistory) => ({
        ...h,
        baseFeePerBlobGas: h.baseFeePerBlobGas!.map((fee, i) =>
          i >= 15 ? fee / 100n : i >= 5 ? fee / 10n : fee,
        ),
      }),
      null,
      {},
    ],
    [
      'a fee above the minimum with zero excess in the header',
      (h: FeeHistory) => h,
      null,
      { excessBlobGas: 0n },
    ],
    [
      'blob gas in the header but a zero ratio',
      (h: FeeHistory) => ({ ...h, blobGasUsedRatio: h.blobGasUsedRatio!.with(-1, 0) }),
      null,
      { blobGasUsed: 131_072n },
    ],
    [
      'blob arrays of the wrong length',
      (h: FeeHistory) => ({ ...h, blobGasUsedRatio: h.blobGasUsedRatio!.slice(1) }),
      null,
      {},
    ],
  ])('rejects %s like an absurd fee history', (_, bend, blobBaseFee, headerChange) => {
    const { history, header } = realHistory(300, 20);
    expect(() =>
      readBlobFees(bend(history), blobBaseFee as bigint | null, { ...header, ...headerChange }),
    ).toThrow(OracleError);
  });
});
