import { and, asc, gte, lt } from 'drizzle-orm';
import { mainnetSnapshots } from '../../drizzle/schema';
import type { Database } from './database';

/**
 * Lists the mainnet slot starts (epoch ms) stored with fromMs <= slot start < toMs, oldest first: a
 * backfill fills only the others, which makes it resumable and leaves live and imported rows alone.
 * At most 35 days of slots (33,600 rows) are asked for, walking the primary key.
 */
export async function listStoredMainnetSlots(db: Database, fromMs: number, toMs: number): Promise<number[]> {
  const rows = await db
    .select({ slotStart: mainnetSnapshots.slotStart })
    .from(mainnetSnapshots)
    .where(
      and(gte(mainnetSnapshots.slotStart, new Date(fromMs)), lt(mainnetSnapshots.slotStart, new Date(toMs))),
    )
    .orderBy(asc(mainnetSnapshots.slotStart));
  return rows.map((row) => row.slotStart.getTime());
}
