import { computeMaxFeePerGas, TIER_HEADROOM_BLOCKS, TIER_NAMES } from '../oracle/max-fee';
import type { WalletGasFields } from '../schemas/wallet-gas';
import { gweiToWei, weiToGwei } from '../units';

/** Mainnet's slot: at most one block, so at most one full block's base-fee rise, each 12 s. */
const SLOT_MS = 12_000;

/**
 * How long after it is served an answer carrying a reading may still be used: the 30-s Cache-Control
 * of /api/gas, /api/dashboard and /api/gas-predictions (lib/http/cache-control.ts; an edge copy is
 * served with its Age, lib/http/edge-copy.ts, so the edge and a browser together keep it no longer),
 * and a second for the Node host's 100-ms reuse of a rendered answer and rounding.
 */
export const ANSWER_USE_MS = 31_000;

/** What aging needs of a reading: its wallet fields, when and at which block it was read. */
type AgeableReading = Pick<WalletGasFields, 'nextBaseFee' | 'tiers'> & {
  source: string;
  updatedAt: string;
  blockNumber: number;
  /** The reading's block time (Unix seconds); absent on an entry kept before it was recorded. */
  blockTimestamp?: number | undefined;
  walletFeesNote?: string | null | undefined;
};

/**
 * The full blocks that may have been mined after a reading's block by the time an answer served at
 * `nowMs` stops being used: its 12-s slots up to then, counted up (the slot about to start counts as
 * passed, so a transaction sent just before it is covered too). A reading without its block time
 * (an entry kept by an older release) counts from the time it was read.
 */
export function countSlotsToAnswerEnd(reading: AgeableReading, nowMs: number): number {
  const blockMs =
    reading.blockTimestamp === undefined ? Date.parse(reading.updatedAt) : reading.blockTimestamp * 1000;
  return Math.max(0, Math.ceil((nowMs + ANSWER_USE_MS - blockMs) / SLOT_MS));
}

/**
 * The reading as served at `nowMs` when it is aged (`aged`: a last good reading, or one served past
 * its 30-s live window): each tier's max fee is the next base fee after the tier's own number of full
 * blocks plus every full block that may have passed since the reading's block (countSlotsToAnswerEnd),
 * plus its tip, exact to the wei; so it still pays the whole tip for the tier's blocks from the moment
 * the answer is used, however wide that makes it (SPEC extension 16 gives every tier a max fee: at 5
 * minutes, about 29 blocks, low's cap is some 39 times the next base fee; a cap, refunded down to what
 * the block charges). The waits stay as read. The next base fee, the tips
 * and so `low` / `average` / `high` stay as read (SPEC extension 16: next base fee plus tip).
 * Computed from the next base fee and the tips alone, so aging an aged reading again is the same as
 * aging it once. A reading that is not aged is returned as it is (the same object), and an aged one
 * is the same object while the blocks counted stay the same: the endpoints then serve their rendered
 * bytes and the dashboard its assembled answer, instead of rebuilding both at every request.
 */
export function ageReading<R extends AgeableReading>(reading: R, nowMs: number, aged: boolean): R {
  if (!aged) return reading;
  const blocks = countSlotsToAnswerEnd(reading, nowMs);
  const last = agedCopies.get(reading);
  if (last?.blocks === blocks) return last.aged as R;
  const nextBaseFee = gweiToWei(reading.nextBaseFee);
  const tiers = Object.fromEntries(
    TIER_NAMES.map((name) => {
      const tier = reading.tiers[name];
      const maxFee = computeMaxFeePerGas(
        nextBaseFee,
        gweiToWei(tier.maxPriorityFeePerGas),
        TIER_HEADROOM_BLOCKS[name] + blocks,
      );
      return [
        name,
        {
          maxPriorityFeePerGas: tier.maxPriorityFeePerGas,
          maxFeePerGas: weiToGwei(maxFee),
          estimatedWaitSeconds: tier.estimatedWaitSeconds,
        },
      ];
    }),
  ) as WalletGasFields['tiers'];
  const copy = { ...reading, tiers, walletFeesNote: describeAging(reading, blocks) };
  agedCopies.set(reading, { blocks, aged: copy });
  return copy;
}

/** Each reading's last aged copy and the blocks it counted (held as long as the reading is). */
const agedCopies = new WeakMap<AgeableReading, { blocks: number; aged: AgeableReading }>();

/**
 * The note of an aged reading. It changes only with the blocks counted (the reading's age to the
 * second is in `updatedAt`), so an answer's body and ETag change when its max fees do, not every second.
 */
function describeAging(reading: AgeableReading, blocks: number): string {
  return (
    `Not live: the reading of block ${reading.blockNumber}, taken at ${reading.updatedAt}; up to ${blocks} ` +
    'full blocks may have been mined since that block by the end of the 30 s this answer may be cached. ' +
    `Each maxFeePerGas covers the tier's own full blocks after those ${blocks}, so it still pays the whole ` +
    'tip that long from now: a wide cap on an old reading, refunded down to what the block charges. The ' +
    'next base fee, tiers, tips and waits are as read.'
  );
}
