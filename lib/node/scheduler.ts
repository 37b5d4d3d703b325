/** How long after a boundary a slot's run fires, so the slot has begun everywhere. */
const LATE_MS = 250;

/** A running timer that can be stopped, resolving once the current run (if any) has ended. */
export interface Scheduler {
  stop(): Promise<void>;
}

/**
 * Runs `tick` once now, then at every boundary of `periodMs` since the epoch (the 90-second history
 * slots), a little after it so the slot has begun everywhere. Runs never overlap: a slow run delays
 * the next slot's run, it never doubles it nor skips it (a run that ends inside a later slot than it
 * began in is followed at once by that slot's run; slots that passed entirely during it cannot be
 * read any more and are not run).
 */
export function startSlotScheduler(
  tick: (firedAt: number) => Promise<void>,
  periodMs: number,
  now: () => number = Date.now,
): Scheduler {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let lastSlot = Number.NEGATIVE_INFINITY;

  const fire = () => {
    const firedAt = now();
    lastSlot = Math.floor(firedAt / periodMs);
    running = tick(firedAt).catch(() => {});
    running.then(schedule);
  };
  const schedule = () => {
    if (stopped) return;
    const at = now();
    const into = at % periodMs;
    const slotNotRun = Math.floor(at / periodMs) > lastSlot;
    const wait = slotNotRun ? Math.max(0, LATE_MS - into) : periodMs - into + LATE_MS;
    timer = setTimeout(fire, wait);
    timer.unref?.();
  };
  fire();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
