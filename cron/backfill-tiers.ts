import { FEE_HISTORY_BLOCKS, type FeeHistory, OracleError } from '../lib/oracle/fee-history';
import { computeTiers } from '../lib/oracle/tiers';
import type { MainnetSnapshot } from '../lib/store/history-writes';
import { SLOT_MS } from '../lib/store/slots';

/** One block's fee data from `eth_feeHistory`, with its timestamp and the provider that served it. */
export interface BlockFee {
  number: number;
  /** Unix seconds. */
  timestamp: number;
  baseFee: bigint;
  /** Base fee of the block after this one (the fee history's next entry). */
  nextBaseFee: bigint;
  gasUsedRatio: number;
  /** Priority fees at the 70th, 90th and 99th percentiles. */
  reward: bigint[];
  /** Label of the provider that served the fee data. */
  provider: string;
}

/** How each slot a pass resolved ended. */
export interface SlotOutcome {
  rows: MainnetSnapshot[];
  /** Slots resolved this pass: stored rows, slots without a block, slots whose tiers failed the checks. */
  resolved: number;
  empty: number;
  rejected: number;
}

/**
 * Computes the tiers the live oracle would have served right after the newest of `window`
 * (consecutive blocks, oldest first, at most 20): the same fee-history math on the same blocks.
 */
export function computeWindowTiers(window: readonly BlockFee[]) {
  const first = window[0];
  const last = window.at(-1);
  if (!first || !last) throw new OracleError('no block in the window');
  const history: FeeHistory = {
    oldestBlock: BigInt(first.number),
    baseFeePerGas: [...window.map((b) => b.baseFee), last.nextBaseFee],
    gasUsedRatio: window.map((b) => b.gasUsedRatio),
    reward: window.map((b) => b.reward),
  };
  return computeTiers(history);
}

/**
 * Resolves the leading `slots` (ascending starts) that `blocks` (consecutive, oldest first) can
 * decide. A slot's snapshot is what the live oracle would have said at its end: the tiers over the 20
 * blocks ending with the newest block stamped before the slot ends, read at that block's time. A
 * slot is decided once a block at or after its end is known, or at once when `final` (the buffer
 * reaches the chain head). A slot holding no block (a long run of missed beacon slots) has no
 * reading of its own and is left empty.
 */
export function resolveSlots(
  blocks: readonly BlockFee[],
  slots: readonly number[],
  final: boolean,
): SlotOutcome {
  const outcome: SlotOutcome = { rows: [], resolved: 0, empty: 0, rejected: 0 };
  const newest = blocks.at(-1);
  let k = -1;
  for (const slotStart of slots) {
    const slotEnd = slotStart + SLOT_MS;
    if (!newest || (!final && newest.timestamp * 1000 < slotEnd)) break;
    while (k + 1 < blocks.length && (blocks[k + 1] as BlockFee).timestamp * 1000 < slotEnd) k += 1;
    outcome.resolved += 1;
    const last = blocks[k];
    if (!last || last.timestamp * 1000 < slotStart) {
      outcome.empty += 1;
      continue;
    }
    const window = blocks.slice(Math.max(0, k - FEE_HISTORY_BLOCKS + 1), k + 1);
    try {
      const tiers = computeWindowTiers(window);
      outcome.rows.push({
        slotStart,
        readAt: last.timestamp * 1000,
        blockNumber: last.number,
        baseFeeGwei: tiers.baseFee,
        lowGwei: tiers.low,
        averageGwei: tiers.average,
        highGwei: tiers.high,
        source: `backfill:${last.provider}`,
      });
    } catch (error) {
      if (!(error instanceof OracleError)) throw error;
      outcome.rejected += 1;
    }
  }
  return outcome;
}

/**
 * Groups missing slots (ascending) into spans read in one walk over the chain: slots closer than
 * `maxGapMs` share a span, so scattered holes between live rows do not each cost a chunk of blocks.
 */
export function groupSlotSpans(slots: readonly number[], maxGapMs: number): number[][] {
  const spans: number[][] = [];
  for (const slot of slots) {
    const span = spans.at(-1);
    const previous = span?.at(-1);
    if (span && previous !== undefined && slot - previous <= maxGapMs) span.push(slot);
    else spans.push([slot]);
  }
  return spans;
}
