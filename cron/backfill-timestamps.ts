/** Seconds between two beacon-chain slots; every post-Merge block timestamp is genesis + 12 x slot. */
export const SECONDS_PER_BLOCK_SLOT = 12;

/**
 * Below this many blocks a segment with missed beacon slots is interpolated rather than split again:
 * 256 blocks is 51 minutes, so the error stays within the few missed slots (12 s each) it holds.
 */
export const MIN_SEGMENT_BLOCKS = 256;

/** A block number and its timestamp in Unix seconds. */
export interface BlockTime {
  number: number;
  timestamp: number;
}

/**
 * Returns the timestamps (Unix seconds) of blocks lo.number + 1 ... hi.number, knowing only the two
 * ends and asking `timestampOf` for more as needed. Since the Merge, a segment whose time span is
 * exactly 12 s per block has no missed beacon slot, so every timestamp inside follows exactly; a
 * segment with missed slots is halved (one header asked per split) until it is exact or shorter than
 * `minSegment`, where it is interpolated linearly. Exact wherever no slot was missed, and off by at
 * most the missed slots' 12 s each elsewhere: about one header per 1,024 blocks, plus a few per
 * missed slot, instead of one per block.
 */
export async function resolveTimestamps(
  lo: BlockTime,
  hi: BlockTime,
  timestampOf: (block: number) => Promise<number>,
  minSegment = MIN_SEGMENT_BLOCKS,
): Promise<number[]> {
  const blocks = hi.number - lo.number;
  if (blocks <= 0) return [];
  const exact = hi.timestamp - lo.timestamp === SECONDS_PER_BLOCK_SLOT * blocks;
  if (exact || blocks <= minSegment) {
    return Array.from(
      { length: blocks },
      (_, i) => lo.timestamp + Math.round(((i + 1) * (hi.timestamp - lo.timestamp)) / blocks),
    );
  }
  const middle = lo.number + Math.floor(blocks / 2);
  const mid = { number: middle, timestamp: await timestampOf(middle) };
  // Timestamps strictly grow with block numbers; anything else is a broken answer, not a chain.
  if (!(mid.timestamp > lo.timestamp && mid.timestamp < hi.timestamp)) {
    throw new RangeError(`block ${middle} has a timestamp outside its neighbours'`);
  }
  const [left, right] = await Promise.all([
    resolveTimestamps(lo, mid, timestampOf, minSegment),
    resolveTimestamps(mid, hi, timestampOf, minSegment),
  ]);
  return [...left, ...right];
}
