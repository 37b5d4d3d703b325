import { lt } from 'drizzle-orm';
import { l2Snapshots, mainnetSnapshots } from '../../drizzle/schema';
import type { Database } from './database';
import { isSlotStart } from './slots';

/** One mainnet snapshot to store; times in epoch ms, gas in gwei. */
export interface MainnetSnapshot {
  slotStart: number;
  readAt: number;
  blockNumber: number | null;
  baseFeeGwei: number | null;
  lowGwei: number;
  averageGwei: number;
  highGwei: number;
  /** Provider label, `etherscan`, `backfill` or `import`; never a URL. */
  source: string;
}

/** One L2 snapshot to store; times in epoch ms. */
export interface L2Snapshot {
  network: string;
  slotStart: number;
  readAt: number;
  gasPriceGwei: number;
  executionGasCostUsd: number;
  l1DataFeeUsd: number | null;
  nativeUsd: number;
}

/**
 * How long snapshots are kept. Mainnet: 35 days, the 30-day history range plus five days so the
 * forecaster's four-week lookback is always whole. L2: 8 days, the 168-hour range plus one day.
 */
export const HISTORY_RETENTION_DAYS = { mainnet: 35, l2: 8 } as const;

const DAY_MS = 86_400_000;

/** The oldest slot start a retention of `days` keeps at `nowMs` (older slots are pruned). */
export function retentionCutoff(nowMs: number, days: number): number {
  return nowMs - days * DAY_MS;
}
// Postgres allows 65,535 bind parameters per statement; 1,000 rows of 8 columns stays well inside.
const INSERT_CHUNK = 1_000;

function assertSlot(slotStart: number): void {
  if (!isSlotStart(slotStart)) throw new RangeError(`${slotStart} is not the start of a 90-second slot`);
}

function mainnetValues(row: MainnetSnapshot) {
  assertSlot(row.slotStart);
  return { ...row, slotStart: new Date(row.slotStart), readAt: new Date(row.readAt) };
}

/**
 * Writes a mainnet snapshot unless its slot is already stored, and tells whether it wrote. The
 * primary key decides, so any number of overlapping writers store a slot exactly once.
 */
export async function insertMainnetSnapshot(db: Database, row: MainnetSnapshot): Promise<boolean> {
  const written = await db
    .insert(mainnetSnapshots)
    .values(mainnetValues(row))
    .onConflictDoNothing()
    .returning({ slotStart: mainnetSnapshots.slotStart });
  return written.length > 0;
}

/** Writes many mainnet snapshots, keeping every slot already stored; returns how many it wrote. */
export async function insertMainnetSnapshots(
  db: Database,
  rows: readonly MainnetSnapshot[],
): Promise<number> {
  let written = 0;
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK).map(mainnetValues);
    const result = await db
      .insert(mainnetSnapshots)
      .values(chunk)
      .onConflictDoNothing()
      .returning({ slotStart: mainnetSnapshots.slotStart });
    written += result.length;
  }
  return written;
}

/**
 * Writes L2 snapshots, keeping any (network, slot) already stored, and returns the networks it wrote.
 * Up to 1,000 rows go in one statement, so a slot's readings land all together or not at all.
 */
export async function insertL2Snapshots(db: Database, rows: readonly L2Snapshot[]): Promise<string[]> {
  const values = rows.map((row) => {
    assertSlot(row.slotStart);
    return { ...row, slotStart: new Date(row.slotStart), readAt: new Date(row.readAt) };
  });
  const written: string[] = [];
  for (let i = 0; i < values.length; i += INSERT_CHUNK) {
    const result = await db
      .insert(l2Snapshots)
      .values(values.slice(i, i + INSERT_CHUNK))
      .onConflictDoNothing()
      .returning({ network: l2Snapshots.network });
    written.push(...result.map((row) => row.network));
  }
  return written;
}

/** Deletes snapshots older than the retention windows, counted back from `nowMs`; returns what went. */
export async function pruneHistory(
  db: Database,
  nowMs: number,
  retentionDays: { mainnet: number; l2: number } = HISTORY_RETENTION_DAYS,
): Promise<{ mainnet: number; l2: number }> {
  const mainnet = await db
    .delete(mainnetSnapshots)
    .where(lt(mainnetSnapshots.slotStart, new Date(retentionCutoff(nowMs, retentionDays.mainnet))))
    .returning({ slotStart: mainnetSnapshots.slotStart });
  const l2 = await db
    .delete(l2Snapshots)
    .where(lt(l2Snapshots.slotStart, new Date(retentionCutoff(nowMs, retentionDays.l2))))
    .returning({ slotStart: l2Snapshots.slotStart });
  return { mainnet: mainnet.length, l2: l2.length };
}
