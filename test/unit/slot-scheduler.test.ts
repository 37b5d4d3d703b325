import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SlotRuns, startSlotScheduler } from '../../lib/node/scheduler';

const PERIOD = 90_000;
const SECOND_AT = 60_000;
/** The slot the tests start in (an epoch slot number, so times stay readable as offsets into it). */
const BASE = 1000;

afterEach(() => {
  vi.useRealTimers();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where a time falls: `slot@ms`, the slot counted from BASE, ms into it. */
const where = (at: number) => `${Math.floor(at / PERIOD) - BASE}@${at % PERIOD}`;

describe('startSlotScheduler', () => {
  it('runs every slot once, and the slot a slow run ended in right after it, never skipping it', async () => {
    vi.useFakeTimers();
    // Ten seconds into a slot.
    vi.setSystemTime(BASE * PERIOD + 10_000);
    const slots: number[] = [];
    let runs = 0;
    const scheduler = startSlotScheduler(
      {
        async first(firedAt) {
          slots.push(Math.floor(firedAt / PERIOD) - BASE);
          runs += 1;
          // The second run takes 100 s: it begins in slot 1 and ends in slot 2.
          if (runs === 2) await sleep(100_000);
        },
      },
      PERIOD,
    );
    await vi.advanceTimersByTimeAsync(6 * PERIOD);
    await scheduler.stop();
    expect(slots).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('never runs two ticks at once, and a stop waits for the run under way', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE * PERIOD);
    let active = 0;
    let most = 0;
    let finished = 0;
    const scheduler = startSlotScheduler(
      {
        async first() {
          active += 1;
          most = Math.max(most, active);
          // Each run outlasts two slots.
          await sleep(2.5 * PERIOD);
          active -= 1;
          finished += 1;
        },
      },
      PERIOD,
    );
    await vi.advanceTimersByTimeAsync(10 * PERIOD);
    const stopping = scheduler.stop();
    await vi.advanceTimersByTimeAsync(3 * PERIOD);
    await stopping;
    expect(most).toBe(1);
    expect(active).toBe(0);
    expect(finished).toBeGreaterThanOrEqual(4);
  });
});

describe('startSlotScheduler: the second try', () => {
  /**
   * Runs that record where each began (`first 0@250`), the first runs of `retrySlots` asking for a
   * second try; the very first run lasts `firstMs`, each second try `secondMs`.
   */
  function recorder(retrySlots: number[], firstMs = 0, secondMs = 0) {
    const events: string[] = [];
    let active = 0;
    let most = 0;
    const runs: SlotRuns = {
      async first(firedAt) {
        events.push(`first ${where(firedAt)}`);
        active += 1;
        most = Math.max(most, active);
        if (events.length === 1 && firstMs > 0) await sleep(firstMs);
        active -= 1;
        return retrySlots.includes(Math.floor(firedAt / PERIOD) - BASE);
      },
      second: {
        at: SECOND_AT,
        async run(firedAt) {
          events.push(`second ${where(firedAt)}`);
          active += 1;
          most = Math.max(most, active);
          if (secondMs > 0) await sleep(secondMs);
          active -= 1;
        },
      },
    };
    return { runs, events, most: () => most };
  }

  it('tries a slot that asks for it again at its moment, once, and never a slot that does not', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE * PERIOD + 10_000);
    const { runs, events } = recorder([0, 2]);
    const scheduler = startSlotScheduler(runs, PERIOD);
    await vi.advanceTimersByTimeAsync(3 * PERIOD + 1_000);
    await scheduler.stop();
    expect(events).toEqual([
      'first 0@10000',
      'second 0@60000',
      'first 1@250',
      'first 2@250',
      'second 2@60000',
      'first 3@250',
    ]);
  });

  it('places the second try by the clock it is given', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE * PERIOD + 10_000);
    // The host's clock (deps.now) runs 40 s ahead of the timers' own: 50 s into the slot at the start.
    const now = () => Date.now() + 40_000;
    const { runs, events } = recorder([0]);
    const scheduler = startSlotScheduler(runs, PERIOD, now);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(events).toEqual(['first 0@50000']);
    await vi.advanceTimersByTimeAsync(1);
    expect(events).toEqual(['first 0@50000', 'second 0@60000']);
    await scheduler.stop();
  });

  it('gives no second try when the first run ends past its moment', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE * PERIOD + 10_000);
    // From 10 s to 65 s into the slot.
    const { runs, events } = recorder([0], 55_000);
    const scheduler = startSlotScheduler(runs, PERIOD);
    await vi.advanceTimersByTimeAsync(PERIOD + 1_000);
    await scheduler.stop();
    expect(events).toEqual(['first 0@10000', 'first 1@250']);
  });

  it('drops a second try the clock finds late (stepped forward while its timer counted), then runs the next slot', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE * PERIOD + 10_000);
    // The host's clock steps 25 s forward (NTP, a resume) while the try's timer counts its 50 s.
    let step = 0;
    const now = () => Date.now() + step;
    const { runs, events } = recorder([0]);
    const scheduler = startSlotScheduler(runs, PERIOD, now);
    await vi.advanceTimersByTimeAsync(1_000);
    step = 25_000;
    await vi.advanceTimersByTimeAsync(PERIOD);
    await scheduler.stop();
    expect(events).toEqual(['first 0@10000', 'first 1@250']);
  });

  it('runs a slow second try alone: the next slot begins once it has ended', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE * PERIOD + 10_000);
    // The second try takes 40 s, from 60 s into slot 0 to 10 s into slot 1.
    const { runs, events, most } = recorder([0], 0, 40_000);
    const scheduler = startSlotScheduler(runs, PERIOD);
    await vi.advanceTimersByTimeAsync(2 * PERIOD);
    await scheduler.stop();
    expect(events.slice(0, 2)).toEqual(['first 0@10000', 'second 0@60000']);
    // Right after it (the fake timers count a timeout of 0 as 1 ms), not 250 ms into the next slot.
    expect(events[2]).toMatch(/^first 1@1000\d$/);
    expect(events.slice(3)).toEqual(['first 2@250']);
    expect(most()).toBe(1);
  });

  it('stops at once while waiting for a second try, which then never runs', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE * PERIOD + 10_000);
    const { runs, events } = recorder([0, 1]);
    const scheduler = startSlotScheduler(runs, PERIOD);
    await vi.advanceTimersByTimeAsync(20_000);
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    // No time passes: the stop ends without the 30 s still left before the try.
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(true);
    await stopping;
    await vi.advanceTimersByTimeAsync(3 * PERIOD);
    expect(events).toEqual(['first 0@10000']);
  });

  it('a stop during a second try waits for it, and nothing runs after it', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(BASE * PERIOD + 10_000);
    // The second try runs from 60 to 70 s into the slot; the stop comes at 62 s.
    const { runs, events } = recorder([0], 0, 10_000);
    const scheduler = startSlotScheduler(runs, PERIOD);
    await vi.advanceTimersByTimeAsync(52_000);
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    await stopping;
    await vi.advanceTimersByTimeAsync(3 * PERIOD);
    expect(events).toEqual(['first 0@10000', 'second 0@60000']);
  });
});
