/**
 * Whether a wait that ends at `until` (a back-off, a cooldown) is still under way at `now`. One that
 * ends further ahead than `longestMs`, the longest such wait, was set before the clock was set back:
 * it is over, rather than lasting as long again as the clock went back.
 */
export function stillWaiting(until: number, now: number, longestMs: number): boolean {
  return now < until && until - now <= longestMs;
}
