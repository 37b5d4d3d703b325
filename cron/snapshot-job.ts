import type { AppDeps } from '../lib/deps';
import { L2_NETWORKS } from '../lib/l2/networks';
import { describeDbError } from '../lib/store/database';
import { insertL2Snapshots, insertMainnetSnapshot, pruneHistory } from '../lib/store/history-writes';
import { slotStartOf } from '../lib/store/slots';
import { readSlotPresence } from './slot-presence';
import { readL2ForSlot, readMainnetForSlot } from './slot-readings';

/** What one run did to its slot; returned for tests and summarised in the log. */
export interface SnapshotResult {
  /** Start (epoch ms) of the 90-second slot holding the tick. */
  slotStart: number;
  /** `exists`: stored before (by an earlier or a concurrent run); `skipped`: no live upstream reading. */
  mainnet: 'written' | 'exists' | 'skipped';
  /** L2 networks this run wrote. */
  l2: string[];
  /** Rows deleted for being older than the retention windows. */
  pruned: { mainnet: number; l2: number };
  /** The parts the slot still lacks after this run (`mainnet`, L2 network ids); empty once complete. */
  missing: string[];
}

/**
 * The latest a run may begin into its 90-second slot for the job's bounds to hold, and when the Node
 * host's second try of a slot comes (lib/node/scheduler.ts): the Worker's ticks come 0, 30 or 60 s
 * in, the latest of them at this. A read that meets the fleet's back-off waits at most
 * BACKOFF_WAIT_MAX_MS (15 s) plus half a second for it, so it begins by 76 s in, and leaves 14 s, over
 * twice a refresh's lease (2 × UPSTREAM_TIMEOUT_MS + 1 s: 6 s by default), for the read to end inside
 * the slot. A run begun later could read after the slot ended and store nothing ("reading after the
 * slot"); a second try earlier would give a failed upstream, and the fleet's back-off (5 s, doubling
 * up to 60 s), less time to end.
 */
export const SNAPSHOT_LATEST_TICK_MS = 60_000;

/** The history store failed during a run; nothing of the run was stored and the next run retries. */
export class SnapshotStoreError extends Error {
  override name = 'SnapshotStoreError';
}

/**
 * Writes the 90-second slot holding `firedAt` (SPEC decision 15): mainnet gas and the four L2 networks,
 * read through the services the endpoints use, each part inserted only if absent, so any number of
 * ticks and overlapping runs store a slot once. A slot found complete costs one lookup and no
 * upstream call or write. An upstream failure skips its part; so does the fleet's back-off after a
 * failed refresh, unless it ends within 15 s (the read then waits for it and reads, see
 * lib/store/shared-read.ts afterBackoff). Only a later tick in the same slot can fill a skipped part
 * in: the Worker's second tick of every other slot, or the Node host's second try of a slot that
 * lacks a part (`missing`; SNAPSHOT_LATEST_TICK_MS in). The writes and the retention pruning share
 * one transaction, run only when there is something to write, so a database failure leaves nothing
 * half-written, is logged, and makes the run reject so the scheduler reports it.
 */
export async function runSnapshotJob(deps: AppDeps, firedAt: number): Promise<SnapshotResult> {
  const slotStart = slotStartOf(firedAt);
  const slot = new Date(slotStart).toISOString();
  let result: SnapshotResult;
  try {
    result = await deps.withDb(async (db) => {
      const present = await readSlotPresence(db, slotStart);
      const wantedL2 = new Set<string>(L2_NETWORKS.map((n) => n.id).filter((id) => !present.l2.has(id)));
      const [mainnet, l2] = await Promise.all([
        present.mainnet ? undefined : readMainnetForSlot(deps, slotStart),
        wantedL2.size > 0 ? readL2ForSlot(deps, slotStart, wantedL2) : { rows: [], skipped: {} },
      ]);
      if (mainnet && 'skipped' in mainnet) {
        deps.log.warn('snapshot: mainnet part skipped', { slot, reason: mainnet.skipped });
      }
      if (Object.keys(l2.skipped).length > 0) {
        deps.log.warn('snapshot: l2 networks skipped', { slot, networks: l2.skipped });
      }
      const mainnetRow = mainnet && 'row' in mainnet ? mainnet.row : undefined;
      const mainnetOutcome = mainnet && 'skipped' in mainnet ? 'skipped' : 'exists';
      // A part this run inserts counts as stored whoever's insert wins.
      const missing = [...(mainnetOutcome === 'skipped' ? ['mainnet'] : []), ...Object.keys(l2.skipped)];
      // Nothing new to store (slot complete, or every part skipped): no transaction, no pruning.
      if (!mainnetRow && l2.rows.length === 0) {
        return {
          slotStart,
          mainnet: mainnetOutcome,
          l2: [],
          pruned: { mainnet: 0, l2: 0 },
          missing,
        } satisfies SnapshotResult;
      }
      return db.transaction(async (tx) => {
        // Pruned first: the oldest hour's sums are locked before the newest's, in the order every
        // other writer of mainnet_hourly takes them (migration 0003), so none can deadlock with this.
        const pruned = await pruneHistory(tx, deps.now());
        const mainnetWritten = mainnetRow ? await insertMainnetSnapshot(tx, mainnetRow) : false;
        const l2Written = l2.rows.length > 0 ? await insertL2Snapshots(tx, l2.rows) : [];
        return {
          slotStart,
          mainnet: mainnetWritten ? 'written' : mainnetOutcome,
          l2: l2Written,
          pruned,
          missing,
        } satisfies SnapshotResult;
      });
    });
  } catch (error) {
    const reason = describeDbError(error);
    deps.log.error('snapshot not stored; the next run retries', { slot, error: reason });
    throw new SnapshotStoreError(`slot ${slot} not stored: ${reason}`);
  }
  deps.log.info('snapshot', { slot, mainnet: result.mainnet, l2: result.l2, pruned: result.pruned });
  return result;
}
