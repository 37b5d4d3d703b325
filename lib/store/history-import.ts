import type { Database } from './database';
import { insertMainnetSnapshots, type MainnetSnapshot } from './history-writes';
import { slotStartOf } from './slots';

/** What an import did: rows read, slots they fell in, slots written and slots kept as they were. */
export interface ImportSummary {
  rows: number;
  slots: number;
  written: number;
  kept: number;
}

/**
 * Turns a time series (epoch ms, gwei) into one mainnet snapshot per 90-second slot, every tier set
 * to the value and `source` `import`. Several rows in one slot (per-block data) are averaged, so no
 * row is silently dropped in favour of another.
 */
export function seriesToSnapshots(rows: readonly { time: number; value: number }[]): MainnetSnapshot[] {
  const slots = new Map<number, { sum: number; count: number; lastTime: number }>();
  for (const row of rows) {
    if (!Number.isFinite(row.time) || !Number.isFinite(row.value) || row.value < 0) {
      throw new RangeError(`row at ${new Date(row.time).toISOString()} holds ${row.value}, not a gas price`);
    }
    const slot = slotStartOf(row.time);
    const entry = slots.get(slot) ?? { sum: 0, count: 0, lastTime: row.time };
    entry.sum += row.value;
    entry.count += 1;
    entry.lastTime = Math.max(entry.lastTime, row.time);
    slots.set(slot, entry);
  }
  return [...slots]
    .sort(([a], [b]) => a - b)
    .map(([slotStart, { sum, count, lastTime }]) => {
      const gwei = sum / count;
      return {
        slotStart,
        readAt: lastTime,
        blockNumber: null,
        baseFeeGwei: null,
        lowGwei: gwei,
        averageGwei: gwei,
        highGwei: gwei,
        source: 'import',
      };
    });
}

/** Imports a series into mainnet history, keeping every slot already stored (a live reading wins). */
export async function importHistory(
  db: Database,
  rows: readonly { time: number; value: number }[],
): Promise<ImportSummary> {
  const snapshots = seriesToSnapshots(rows);
  const written = await insertMainnetSnapshots(db, snapshots);
  return { rows: rows.length, slots: snapshots.length, written, kept: snapshots.length - written };
}
