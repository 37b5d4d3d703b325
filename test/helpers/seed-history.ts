import type { DatabaseEngine } from '../../lib/store/engines';
import { insertMainnetSnapshots, type MainnetSnapshot } from '../../lib/store/history-writes';
import { SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { loadHourlyBaseFees } from '../upstreams/shared-data';

const HOUR_MS = 3_600_000;
/** The simulators replay blocks of 29 Nov 2023; the history ends at the same moment of the real series. */
const SERIES_END = Date.parse('2023-11-29T12:00:00Z');

/**
 * Stores `days` of 90-second mainnet snapshots ending now, taken from the real hourly base fees that end
 * on the simulators' day, shifted in time; tiers ride on the base fee with the tips the simulated
 * blocks pay (about 3 / 20 / 50 gwei). `scale` multiplies every fee (a cheaper or dearer past than
 * today's simulated chain). Returns how many snapshots it wrote.
 */
export async function seedRealHistory(
  engine: DatabaseEngine,
  now: number,
  options: { days?: number; scale?: number } = {},
): Promise<number> {
  const days = options.days ?? 8;
  const scale = options.scale ?? 1;
  const hours = loadHourlyBaseFees().filter(
    (h) => h.time <= SERIES_END && h.time > SERIES_END - days * 24 * HOUR_MS,
  );
  const shift = slotStartOf(now) - SERIES_END;
  const rows: MainnetSnapshot[] = [];
  for (const { time, baseFeeGwei } of hours) {
    const base = baseFeeGwei * scale;
    for (
      let slot = slotStartOf(time + shift);
      slot < time + shift + HOUR_MS && slot < now - SLOT_MS;
      slot += SLOT_MS
    ) {
      if (slot < time + shift) continue;
      rows.push({
        slotStart: slot,
        readAt: slot + 4_000,
        blockNumber: null,
        baseFeeGwei: base,
        lowGwei: base + 3 * scale,
        averageGwei: base + 20 * scale,
        highGwei: base + 50 * scale,
        source: 'import',
      });
    }
  }
  return engine.withDb((db) => insertMainnetSnapshots(db, rows));
}
