/** A running timer that can be stopped, resolving once the current run (if any) has ended. */
export interface Scheduler {
  stop(): Promise<void>;
}

/**
 * Runs `tick` once now, then at every boundary of `periodMs` since the epoch (the 90-second history
 * slots), a little after it so the slot has begun everywhere. Runs never overlap: a slow run delays
 * the next boundary's run, it never doubles it.
 */
export function startSlotScheduler(
  tick: (firedAt: number) => Promise<void>,
  periodMs: number,
  now: () => number = Date.now,
): Scheduler {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const fire = () => {
    const firedAt = now();
    running = tick(firedAt).catch(() => {});
    running.then(schedule);
  };
  const schedule = () => {
    if (stopped) return;
    const wait = periodMs - (now() % periodMs) + 250;
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
