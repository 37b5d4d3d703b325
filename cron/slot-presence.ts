import { eq } from 'drizzle-orm';
import { l2Snapshots, mainnetSnapshots } from '../drizzle/schema';
import type { Database } from '../lib/store/database';

/** Which parts of one slot are already stored: the mainnet row and the L2 networks present. */
export interface SlotPresence {
  mainnet: boolean;
  l2: Set<string>;
}

/**
 * Reads which parts of a slot are stored, so a run that finds its slot complete asks no upstream
 * (the every-minute Cron Trigger touches a third of the slots twice). Two primary-key lookups.
 */
export async function readSlotPresence(db: Database, slotStart: number): Promise<SlotPresence> {
  const at = new Date(slotStart);
  // One after the other: on a pool opened for this run, parallel queries would open a second connection.
  const mainnet = await db
    .select({ slotStart: mainnetSnapshots.slotStart })
    .from(mainnetSnapshots)
    .where(eq(mainnetSnapshots.slotStart, at))
    .limit(1);
  const l2 = await db
    .select({ network: l2Snapshots.network })
    .from(l2Snapshots)
    .where(eq(l2Snapshots.slotStart, at));
  return { mainnet: mainnet.length > 0, l2: new Set(l2.map((row) => row.network)) };
}
