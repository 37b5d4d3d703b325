import type { MainnetSnapshot } from '../../lib/store/history-writes';
import { listSlotStarts } from '../../lib/store/slots';

const HOUR_MS = 3_600_000;

/**
 * Mainnet snapshots for every 90-second slot in [fromMs, toMs) whose hourly mean of the average tier
 * is `averageOfHour(hour start)`: the 40 slots of an hour alternate 5 % above and below it, so only
 * the mean (as the forecaster and the scoring read it) is exactly that value.
 */
export function snapshotsWithHourlyMeans(
  fromMs: number,
  toMs: number,
  averageOfHour: (hourStart: number) => number,
  source = 'import',
): MainnetSnapshot[] {
  return listSlotStarts(fromMs, toMs).map((slot, i) => {
    const mean = averageOfHour(Math.floor(slot / HOUR_MS) * HOUR_MS);
    const average = mean * (i % 2 === 0 ? 1.05 : 0.95);
    return {
      slotStart: slot,
      readAt: slot + 5_000,
      blockNumber: null,
      baseFeeGwei: null,
      lowGwei: average * 0.9,
      averageGwei: average,
      highGwei: average * 1.2,
      source,
    };
  });
}
