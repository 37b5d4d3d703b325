import { describe, expect, it } from 'vitest';
import { createProgressBar, formatProgressBar } from '../../cron/backfill-progress';
import { type BlockFee, computeWindowTiers, groupSlotSpans, resolveSlots } from '../../cron/backfill-tiers';
import { resolveTimestamps } from '../../cron/backfill-timestamps';
import { SLOT_MS } from '../../lib/store/slots';

const GWEI = 1_000_000_000n;
const GENESIS = 1_606_824_023; // beacon-chain genesis, Unix seconds

/** A post-Merge chain: block n sits in beacon slot slots[n]; timestamps are genesis + 12 s x slot. */
function chainWithMissedSlots(blocks: number, missedEvery: number) {
  const timestamps: number[] = [];
  let slot = 0;
  for (let n = 0; n < blocks; n++) {
    slot += n > 0 && n % missedEvery === 0 ? 2 : 1;
    timestamps.push(GENESIS + 12 * slot);
  }
  return timestamps;
}

function block(number: number, timestamp: number, baseFeeGwei = 20n, tips = [1n, 2n, 3n]): BlockFee {
  return {
    number,
    timestamp,
    baseFee: baseFeeGwei * GWEI,
    nextBaseFee: baseFeeGwei * GWEI,
    gasUsedRatio: 0.5,
    reward: tips.map((t) => t * GWEI),
    provider: 'sim',
  };
}

describe('block timestamps from a few headers', () => {
  it('are exact without asking anything when no beacon slot was missed', async () => {
    const times = chainWithMissedSlots(2_000, Number.POSITIVE_INFINITY);
    const asked: number[] = [];
    const got = await resolveTimestamps(
      { number: 0, timestamp: times[0] as number },
      { number: 1_024, timestamp: times[1_024] as number },
      async (n) => {
        asked.push(n);
        return times[n] as number;
      },
    );
    expect(got).toEqual(times.slice(1, 1_025));
    expect(asked).toEqual([]);
  });

  it('split around missed slots, exact in clean segments and within a few slots elsewhere', async () => {
    const times = chainWithMissedSlots(1_100, 300);
    const asked: number[] = [];
    const got = await resolveTimestamps(
      { number: 0, timestamp: times[0] as number },
      { number: 1_024, timestamp: times[1_024] as number },
      async (n) => {
        asked.push(n);
        return times[n] as number;
      },
    );
    const errors = got.map((t, i) => Math.abs(t - (times[i + 1] as number)));
    expect(Math.max(...errors)).toBeLessThanOrEqual(12);
    // Three missed slots in 1,024 blocks: a handful of headers, not one per block.
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThanOrEqual(6);
    // Segments without a missed slot come out exact.
    expect(got.slice(0, 256)).toEqual(times.slice(1, 257));
  });

  it('reject a header whose timestamp lies outside its neighbours', async () => {
    await expect(
      resolveTimestamps(
        { number: 0, timestamp: 1_000 },
        { number: 1_000, timestamp: 1_000 + 12 * 1_010 },
        async () => 5,
      ),
    ).rejects.toThrow(RangeError);
  });
});

describe('slot snapshots from blocks', () => {
  const start = 1_800_000_000_000 - (1_800_000_000_000 % SLOT_MS);
  const blocksFrom = (count: number, firstSecond: number, step = 12) =>
    Array.from({ length: count }, (_, i) => block(100 + i, firstSecond + i * step));

  it('take the tiers over the 20 blocks ending with the newest block before the slot ends', () => {
    const blocks = blocksFrom(60, start / 1000 - 300);
    const { rows, resolved } = resolveSlots(blocks, [start], false);
    expect(resolved).toBe(1);
    const newest = blocks.filter((b) => b.timestamp * 1000 < start + SLOT_MS).at(-1) as BlockFee;
    expect(rows[0]).toMatchObject({
      slotStart: start,
      blockNumber: newest.number,
      readAt: newest.timestamp * 1000,
    });
    const window = blocks.filter((b) => b.number <= newest.number && b.number > newest.number - 20);
    expect(rows[0]?.averageGwei).toBe(computeWindowTiers(window).average);
  });

  it('wait for a block past the slot end unless the chain head was reached', () => {
    const blocks = blocksFrom(7, start / 1000);
    expect(resolveSlots(blocks, [start, start + SLOT_MS], false).resolved).toBe(0);
    expect(resolveSlots(blocks, [start, start + SLOT_MS], true).resolved).toBe(2);
  });

  it('leave a slot without any block empty', () => {
    // Blocks stop 10 s into the slot and resume 200 s later: the next slot has none.
    const blocks = [...blocksFrom(25, start / 1000 - 280), ...blocksFrom(5, start / 1000 + 200)];
    const outcome = resolveSlots(blocks, [start, start + SLOT_MS], false);
    expect(outcome).toMatchObject({ resolved: 2, empty: 1 });
    expect(outcome.rows.map((r) => r.slotStart)).toEqual([start]);
  });

  it('reject a slot whose tiers fail the sanity checks', () => {
    const blocks = blocksFrom(30, start / 1000 - 240).map((b) => ({
      ...b,
      baseFee: 20_000n * GWEI,
      nextBaseFee: 20_000n * GWEI,
    }));
    expect(resolveSlots(blocks, [start], false)).toMatchObject({ resolved: 1, rejected: 1, rows: [] });
  });

  it('group missing slots closer than a chunk into one span', () => {
    expect(groupSlotSpans([0, 90_000, 180_000, 10_000_000, 10_090_000], 1_000_000)).toEqual([
      [0, 90_000, 180_000],
      [10_000_000, 10_090_000],
    ]);
  });
});

describe('backfill progress bar', () => {
  it('renders done and total as a plain-text bar', () => {
    expect(formatProgressBar(12_345, 28_800)).toBe(
      `[${'#'.repeat(13)}${'.'.repeat(17)}] 42% 12,345/28,800 slots`,
    );
    expect(formatProgressBar(0, 0)).toBe(`[${'#'.repeat(30)}] 100% 0/0 slots`);
  });

  it('writes one line per 10 % when stderr is not a terminal, and redraws in place when it is', () => {
    const lines: string[] = [];
    const bar = createProgressBar({ isTTY: false, write: (t: string) => lines.push(t) });
    for (let done = 0; done <= 1_000; done += 10) bar.update(done, 1_000);
    expect(lines).toHaveLength(11);
    const tty: string[] = [];
    const live = createProgressBar({ isTTY: true, write: (t: string) => tty.push(t) });
    live.update(1, 2);
    live.log('warn x');
    expect(tty).toEqual([`\r${formatProgressBar(1, 2)}`, '\r\x1b[Kwarn x\n']);
  });
});
