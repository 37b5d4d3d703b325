/** How long after a boundary a slot's run fires, so the slot has begun everywhere. */
const LATE_MS = 250;

/**
 * How late a second try may still begin: a timer's own delay (a few ms, more on a busy event loop).
 * A try the clock finds later than that (a stalled loop, a wall clock stepped forward by NTP or a
 * resume from suspend, while the timer counted its own time) is not run: its read could end after
 * the slot, and a wait for the fleet's back-off would hold up the next slot's run.
 */
const SECOND_SLACK_MS = 2_000;

/** What the scheduler runs in each slot. */
export interface SlotRuns {
  /**
   * The slot's run: at its start, or at once when the scheduler starts or a slow run ends inside
   * the slot. Resolves true to ask for the slot's second try.
   */
  first: (firedAt: number) => Promise<unknown>;
  /** The second try: `at` ms into the slot, run once when the first run asked for it and ended by then. */
  second?: { at: number; run: (firedAt: number) => Promise<unknown> };
}

/** A running timer that can be stopped, resolving once the current run (if any) has ended. */
export interface Scheduler {
  stop(): Promise<void>;
}

/**
 * Runs `runs.first` once now, then at every boundary of `periodMs` since the epoch (the 90-second
 * history slots), a little after it so the slot has begun everywhere; when a slot's first run asks
 * for it and ends by `runs.second.at` into the slot, `runs.second` runs then, in the same slot (the
 * Node host's second try of a slot that lacks a part). Runs never overlap: a slow run delays the next
 * one, it never doubles it nor skips the next slot's first run (a run that ends inside a later slot
 * than it began in is followed at once by that slot's first run; slots that passed entirely during it
 * cannot be read any more and are not run). A second try whose moment has passed is not run. A stop
 * cancels the timer, a second try's wait included, and waits for the run under way only.
 */
export function startSlotScheduler(
  runs: SlotRuns,
  periodMs: number,
  now: () => number = Date.now,
): Scheduler {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let lastSlot = Number.NEGATIVE_INFINITY;

  const setTimer = (run: () => void, wait: number) => {
    timer = setTimeout(run, wait);
    timer.unref?.();
  };
  const fire = () => {
    const firedAt = now();
    const slot = Math.floor(firedAt / periodMs);
    lastSlot = slot;
    const first = runs.first(firedAt).then(
      (again) => again === true,
      () => false,
    );
    running = first;
    first.then((again) => (again ? scheduleSecond(slot) : schedule()));
  };
  const scheduleSecond = (slot: number) => {
    const second = runs.second;
    if (stopped || !second) return schedule();
    const at = now();
    const tryAt = slot * periodMs + second.at;
    // Past its moment (or outside its slot, should the clock have been set back) the second try is
    // not run: a read begun later could end after the slot.
    if (Math.floor(at / periodMs) !== slot || at > tryAt) return schedule();
    setTimer(() => {
      // A timer that fires late by the clock (see SECOND_SLACK_MS) has no try left in the slot.
      if (now() > tryAt + SECOND_SLACK_MS) return schedule();
      running = second.run(now()).catch(() => {});
      running.then(schedule);
    }, tryAt - at);
  };
  const schedule = () => {
    if (stopped) return;
    const at = now();
    const into = at % periodMs;
    const slotNotRun = Math.floor(at / periodMs) > lastSlot;
    const wait = slotNotRun ? Math.max(0, LATE_MS - into) : periodMs - into + LATE_MS;
    setTimer(fire, wait);
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
