/** Clocks drift; a time an upstream stamps further ahead of ours than this is a broken answer. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/**
 * Whether a wait that ends at `until` (a back-off, a cooldown) is still under way at `now`. One that
 * ends further ahead than `longestMs`, the longest such wait, was set before the clock was set back:
 * it is over, rather than lasting as long again as the clock went back.
 */
export function stillWaiting(until: number, now: number, longestMs: number): boolean {
  return now < until && until - now <= longestMs;
}
