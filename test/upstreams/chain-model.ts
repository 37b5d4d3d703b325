import {
  type BlockFees,
  type ChainProfile,
  cycleIndex,
  impliedGasUsedRatio,
  type OperatorFeeState,
  type TipSample,
} from './chain-profiles';

/** How one provider's view of the chain is bent by its faults for the current call. */
export interface ChainView {
  /** Head this many blocks behind the chain (block timestamps stay true, so the head is also older). */
  lagBlocks: number;
  /** Every block timestamp this many seconds older (the head number stays current). */
  staleSeconds: number;
  /** Every fee value (base fee, tips, gas price) replaced by this. */
  absurd: bigint | undefined;
}

export const HEALTHY_VIEW: ChainView = { lagBlocks: 0, staleSeconds: 0, absurd: undefined };

/** An exact `eth_feeHistory` answer set by a test (oldestBlock follows from the requested newest block). */
export interface FixedFeeHistory {
  baseFeePerGas: bigint[];
  gasUsedRatio: number[];
  reward?: bigint[][];
  baseFeePerBlobGas?: bigint[];
  blobGasUsedRatio?: number[];
}

/** Values a test has set on one provider; each replaces the chain's default. */
export interface ChainOverrides {
  head?: { number: number; timestamp: number };
  baseFees?: bigint[];
  tips?: TipSample[][];
  feeHistory?: FixedFeeHistory;
  gasPrice?: bigint;
  maxPriorityFee?: bigint;
  l1BaseFee?: bigint;
  l1Fee?: bigint;
  /** OP Stack only: the operator fee fork and parameters (getOperatorFee and L1Block answer from them). */
  operatorFee?: OperatorFeeState;
  /**
   * `full` (default): blob fields in eth_feeHistory and headers, eth_blobBaseFee answered;
   * `no-method`: eth_blobBaseFee unknown, the rest as full; `null-answer` / `empty-answer`: it answers
   * null or "0x" (a proxy passing the unknown method through), the rest as full; `none`: a pre-Cancun
   * node, no blob data at all.
   */
  blobSupport?: BlobSupport;
  /** Arbitrum only: the NodeInterface's L1 gas estimate (gasEstimateL1Component) answered exactly. */
  l1GasEstimate?: bigint;
}

export type BlobSupport = 'full' | 'no-method' | 'null-answer' | 'empty-answer' | 'none';

/** The `eth_feeHistory` result before hex encoding. */
export interface FeeHistory {
  oldestBlock: number;
  baseFeePerGas: bigint[];
  gasUsedRatio: number[];
  reward?: bigint[][];
  baseFeePerBlobGas?: bigint[];
  blobGasUsedRatio?: number[];
}

const MAX_FEE_HISTORY_BLOCKS = 1024;
const sortedTips = new WeakMap<readonly TipSample[], TipSample[]>();

function sortTips(tips: readonly TipSample[]): TipSample[] {
  let sorted = sortedTips.get(tips);
  if (!sorted) {
    sorted = [...tips].sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
    sortedTips.set(tips, sorted);
  }
  return sorted;
}

/** Reward percentiles of one block the way geth computes them: gas-weighted, ascending by tip. */
export function computeRewardPercentiles(
  tips: readonly TipSample[],
  percentiles: readonly number[],
): bigint[] {
  const sorted = sortTips(tips);
  const first = sorted[0];
  if (!first) return percentiles.map(() => 0n);
  const total = sorted.reduce((sum, sample) => sum + sample.weight, 0);
  let index = 0;
  let sum = first.weight;
  return percentiles.map((p) => {
    const threshold = (total * p) / 100;
    while (sum < threshold && index < sorted.length - 1) {
      index += 1;
      sum += sorted[index]!.weight;
    }
    return sorted[index]!.tip;
  });
}

/** One provider's chain: the shared profile, the clock, and the values a test set on this provider. */
export class ChainModel {
  overrides: ChainOverrides = {};

  constructor(
    readonly profile: ChainProfile,
    private readonly now: () => number,
  ) {}

  /** The head block number as this view reports it. */
  headNumber(view: ChainView): number {
    const { head } = this.overrides;
    const { anchor, blockTimeMs } = this.profile;
    const number = head
      ? head.number
      : anchor.number + Math.floor((this.now() - anchor.timestamp * 1000) / blockTimeMs);
    return number - view.lagBlocks;
  }

  /** Block n's timestamp in seconds. */
  timestampOf(n: number, view: ChainView): number {
    const { head } = this.overrides;
    const { anchor, blockTimeMs } = this.profile;
    const from = head ?? anchor;
    return from.timestamp + Math.floor(((n - from.number) * blockTimeMs) / 1000) - view.staleSeconds;
  }

  /** Block n's fee data, with this provider's overrides and the view's absurd value applied. */
  fees(n: number, view: ChainView): BlockFees {
    const base = this.profile.feesAt(n);
    const { baseFees, tips } = this.overrides;
    let fees = base;
    if (baseFees && baseFees.length > 0) {
      const baseFee = baseFees[cycleIndex(n, baseFees.length)]!;
      const next = baseFees[cycleIndex(n + 1, baseFees.length)]!;
      fees = { ...fees, baseFee, gasUsedRatio: impliedGasUsedRatio(baseFee, next) };
    }
    if (tips && tips.length > 0) fees = { ...fees, tips: tips[cycleIndex(n, tips.length)]! };
    if (view.absurd !== undefined) {
      fees = { ...fees, baseFee: view.absurd, tips: [{ tip: view.absurd, weight: 21_000 }] };
    }
    return fees;
  }

  /** The base fee of the block after the head. */
  nextBaseFee(view: ChainView): bigint {
    return this.fees(this.headNumber(view) + 1, view).baseFee;
  }

  /** eth_maxPriorityFeePerGas: geth's oracle (60th percentile of the 3 cheapest tips of the last 20 blocks). */
  maxPriorityFee(view: ChainView): bigint {
    if (view.absurd !== undefined) return view.absurd;
    if (this.overrides.maxPriorityFee !== undefined) return this.overrides.maxPriorityFee;
    if (this.profile.suggestedTip !== undefined && !this.overrides.tips) return this.profile.suggestedTip;
    const head = this.headNumber(view);
    const samples: bigint[] = [];
    for (let n = head - 19; n <= head; n += 1) {
      const cheapest = sortTips(this.fees(n, view).tips).filter((sample) => sample.tip >= 2n);
      samples.push(...cheapest.slice(0, 3).map((sample) => sample.tip));
    }
    samples.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const pick = samples[Math.floor(((samples.length - 1) * 60) / 100)] ?? 0n;
    const ceiling = 500_000_000_000n;
    return pick > ceiling ? ceiling : pick;
  }

  /** eth_gasPrice: next base fee plus the suggested tip, unless a test set it. */
  gasPrice(view: ChainView): bigint {
    if (view.absurd !== undefined) return view.absurd;
    if (this.overrides.gasPrice !== undefined) return this.overrides.gasPrice;
    return this.nextBaseFee(view) + this.maxPriorityFee(view);
  }

  /** Whether this node speaks EIP-4844 at all (blob header fields, eth_feeHistory blob fields). */
  get hasBlobs(): boolean {
    return this.overrides.blobSupport !== 'none';
  }

  /**
   * Block n's blob header fields. With a fixed fee history set, the newest block's header agrees with
   * it: blob gas used from its last ratio, and an excess that is zero exactly when its blob fee is 1 wei.
   */
  blobHeader(n: number, view: ChainView): { blobGasUsed: bigint; excessBlobGas: bigint } {
    const fixed = this.overrides.feeHistory;
    if (fixed) {
      const ratio = fixed.blobGasUsedRatio?.at(-1) ?? 0;
      const fee = fixed.baseFeePerBlobGas?.at(-2) ?? 1n;
      return { blobGasUsed: BigInt(Math.round(ratio * 21)) * 131_072n, excessBlobGas: fee > 1n ? 1n : 0n };
    }
    const fees = this.fees(n, view);
    return { blobGasUsed: fees.blobGasUsed, excessBlobGas: fees.excessBlobGas };
  }

  /** eth_feeHistory over `count` blocks ending at `newest` (already resolved and <= head). */
  feeHistory(count: number, newest: number, percentiles: readonly number[], view: ChainView): FeeHistory {
    const fixed = this.overrides.feeHistory;
    if (fixed) {
      const blocks = fixed.gasUsedRatio.length;
      return {
        oldestBlock: newest - blocks + 1,
        baseFeePerGas: fixed.baseFeePerGas,
        gasUsedRatio: fixed.gasUsedRatio,
        ...(fixed.reward ? { reward: fixed.reward } : {}),
        ...(this.hasBlobs
          ? {
              baseFeePerBlobGas: fixed.baseFeePerBlobGas ?? fixed.baseFeePerGas.map(() => 1n),
              blobGasUsedRatio: fixed.blobGasUsedRatio ?? fixed.gasUsedRatio.map(() => 0),
            }
          : {}),
      };
    }
    const blocks = Math.max(0, Math.min(count, MAX_FEE_HISTORY_BLOCKS, newest + 1));
    const oldestBlock = newest - blocks + 1;
    const history = { oldestBlock, baseFeePerGas: [] as bigint[], gasUsedRatio: [] as number[] };
    const blobFees: bigint[] = [];
    const blobRatios: number[] = [];
    const reward: bigint[][] = [];
    for (let n = oldestBlock; n <= newest + 1; n += 1) {
      const fees = this.fees(n, view);
      history.baseFeePerGas.push(fees.baseFee);
      blobFees.push(fees.blobBaseFee);
      if (n > newest) break;
      history.gasUsedRatio.push(fees.gasUsedRatio);
      blobRatios.push(fees.blobGasUsedRatio);
      if (percentiles.length > 0) reward.push(computeRewardPercentiles(fees.tips, percentiles));
    }
    return {
      ...history,
      ...(percentiles.length > 0 ? { reward } : {}),
      ...(this.hasBlobs ? { baseFeePerBlobGas: blobFees, blobGasUsedRatio: blobRatios } : {}),
    };
  }
}

/** A mainnet head (at or just past the clock's head) whose newest block carries blobs, so the blob maximum is known. */
export function headWithBlobs(upstreams: { mainnet: readonly { model: ChainModel }[] }): number {
  const model = upstreams.mainnet[0]?.model;
  if (!model) throw new Error('no mainnet simulator');
  // From the head the clock gives: a real mainnet number for now, above the lowest one it can have.
  let n = model.headNumber(HEALTHY_VIEW);
  while (model.fees(n, HEALTHY_VIEW).blobGasUsed === 0n) n += 1;
  return n;
}
