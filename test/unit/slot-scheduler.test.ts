import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSlotScheduler } from '../../lib/node/scheduler';

const PERIOD = 90_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('startSlotScheduler', () => {
  it('runs every slot once, and the slot a slow run ended in right after it, never skipping it', async () => {
    vi.useFakeTimers();
    // Ten seconds into a slot.
    vi.setSystemTime(1000 * PERIOD + 10_000);
    const slots: number[] = [];
    let runs = 0;
    const scheduler = startSlotScheduler(async (firedAt) => {
      slots.push(Math.floor(firedAt / PERIOD) - 1000);
      runs += 1;
      // The second run takes 100 s: it begins in slot 1 and ends in slot 2.
      if (runs === 2) await new Promise((resolve) => setTimeout(resolve, 100_000));
    }, PERIOD);
    await vi.advanceTimersByTimeAsync(6 * PERIOD);
    await scheduler.stop();
    expect(slots).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('never runs two ticks at once, and a stop waits for the run under way', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(1000 * PERIOD);
    let active = 0;
    let most = 0;
    let finished = 0;
    const scheduler = startSlotScheduler(async () => {
      active += 1;
      most = Math.max(most, active);
      // Each run outlasts two slots.
      await new Promise((resolve) => setTimeout(resolve, 2.5 * PERIOD));
      active -= 1;
      finished += 1;
    }, PERIOD);
    await vi.advanceTimersByTimeAsync(10 * PERIOD);
    const stopping = scheduler.stop();
    await vi.advanceTimersByTimeAsync(3 * PERIOD);
    await stopping;
    expect(most).toBe(1);
    expect(active).toBe(0);
    expect(finished).toBeGreaterThanOrEqual(4);
  });
});
