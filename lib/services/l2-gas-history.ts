import type { AppDeps } from '../deps';
import type { L2NetworkId } from '../l2/networks';
import { type L2Sample, readL2Samples } from '../store/history-queries';
import { readHistoryStore } from './gas-history';

// Matches the endpoint's 15-second edge lifetime loosely; a new slot arrives every 90 seconds.
const L2_HISTORY_TTL_MS = 5_000;

/** Raw L2 samples for one network over the last `hours` hours (`toL2GasHistoryBody` shapes the body). */
export interface L2GasHistory {
  network: L2NetworkId;
  hours: number;
  samples: L2Sample[];
  /** Read time of the newest sample served, else the time of the request (no samples). */
  updatedAt: number;
}

/**
 * Reads the stored 90-second samples of an L2 network, oldest first (SPEC 2.11, decision 11).
 * @throws HistoryStoreUnavailableError when the store cannot be read.
 */
export async function getL2GasHistory(
  deps: Pick<AppDeps, 'withDb' | 'log' | 'now' | 'cache'>,
  network: L2NetworkId,
  hours: number,
): Promise<L2GasHistory> {
  return deps.cache.get(`l2-gas-history:${network}:${hours}`, L2_HISTORY_TTL_MS, async () => {
    const now = deps.now();
    const samples = await readHistoryStore(deps, (db) =>
      readL2Samples(db, network, { fromMs: now - hours * 3_600_000, toMs: now }),
    );
    const newest = samples.at(-1);
    return { network, hours, samples, updatedAt: newest ? newest.readAt : now };
  });
}
