import { MAX_SANE_GWEI } from '../oracle/sanity';
import type { Database } from './database';
import {
  HISTORY_RETENTION_DAYS,
  insertMainnetSnapshots,
  type MainnetSnapshot,
  retentionCutoff,
} from './history-writes';
import { slotStartOf } from './slots';

/**
 * What an import did: rows read, slots they fell in, slots written and slots kept as they were, and
 * rows older than the mainnet retention, not imported (the snapshot job would prune them at once).
 */
export interface ImportSummary {
  rows: number;
  slots: number;
  written: number;
  kept: number;
  tooOld: number;
}

/**
 * Turns a time series (epoch ms, gwei) into one mainnet snapshot per 90-second slot, every tier set
 * to the value and `source` `import`. Several rows in one slot (per-block data) are averaged, so no
 * row is silently dropped in favour of another.
 */
export function seriesToSnapshots(rows: readonly { time: number; value: number }[]): MainnetSnapshot[] {
  const slots = new Map<number, { sum: number; count: number; lastTime: number }>();
  for (const row of rows) {
    if (!Number.isFinite(row.time) || !Number.isFinite(row.value) || !(row.value > 0)) {
      throw new RangeError(`row at ${new Date(row.time).toISOString()} holds ${row.value}, not a gas price`);
    }
    if (row.value > MAX_SANE_GWEI) {
      throw new RangeError(
        `row at ${new Date(row.time).toISOString()} holds ${row.value} gwei, above the ${MAX_SANE_GWEI} gwei ` +
          'sanity ceiling (a file in wei needs --unit wei)',
      );
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

/**
 * Imports a series into mainnet history, keeping every slot already stored (a live reading wins).
 * A row in the slot under way or later is refused (it would take the live reading's place), and rows
 * older than the retention are left out and counted.
 */
export async function importHistory(
  db: Database,
  rows: readonly { time: number; value: number }[],
  now: number = Date.now(),
): Promise<ImportSummary> {
  const current = slotStartOf(now);
  const ahead = rows.find((row) => row.time >= current);
  if (ahead) {
    throw new RangeError(
      `row at ${new Date(ahead.time).toISOString()} is in the 90-second slot under way or later; ` +
        'imported history must end before the live readings begin',
    );
  }
  // Every row is checked (a bad file is refused, however old); slots are kept as pruning keeps them.
  const cutoff = retentionCutoff(now, HISTORY_RETENTION_DAYS.mainnet);
  const snapshots = seriesToSnapshots(rows).filter((snapshot) => snapshot.slotStart >= cutoff);
  const written = await insertMainnetSnapshots(db, snapshots);
  return {
    rows: rows.length,
    slots: snapshots.length,
    written,
    kept: snapshots.length - written,
    tooOld: rows.filter((row) => slotStartOf(row.time) < cutoff).length,
  };
}
