import { settleWithin } from '../async';
import type { AppDeps } from '../deps';
import { HistoryStoreUnavailableError } from '../errors';
import { type Database, describeDbError, STORE_READ_DEADLINE_MS } from '../store/database';
import { chooseBucketSeconds, type HistoryRange, RANGE_SECONDS, rangeWindow } from '../store/history-buckets';
import { type HistoryBucket, readBucketedHistory } from '../store/history-queries';

/**
 * Seconds a client should wait before retrying when the history store is down: a fixed guess, not a
 * count-down like mainnet gas's (secondsUntilRetry), since nothing backs off from the database (every
 * request that needs it tries it afresh), so no next attempt has a time to count down to.
 */
export const STORE_RETRY_AFTER_SECONDS = 30;

// Identical concurrent requests share one query; short enough that a new 90-second slot shows promptly.
const HISTORY_TTL_MS = 5_000;

/** Mainnet history for one range: buckets oldest first and the bucket size used (`toGasHistoryBody` shapes the body). */
export interface GasHistory {
  range: HistoryRange;
  bucketSeconds: number;
  buckets: HistoryBucket[];
  /** Read time of the newest snapshot served, else the time of the request (empty store). */
  updatedAt: number;
}

/**
 * Runs one unit of work on the history store. Any failure there (unreachable, refused, broken
 * connection, no answer within STORE_READ_DEADLINE_MS) is logged and reported as unavailable with a
 * retry hint, since the store is the only source of history and a client can do nothing but retry.
 * @throws HistoryStoreUnavailableError when the store cannot do the work.
 */
export async function readHistoryStore<T>(
  deps: Pick<AppDeps, 'withDb' | 'log'>,
  work: (db: Database) => Promise<T>,
): Promise<T> {
  try {
    return await settleWithin(deps.withDb(work), STORE_READ_DEADLINE_MS);
  } catch (error) {
    deps.log.error('history store unavailable', { error: describeDbError(error) });
    throw storeUnavailable();
  }
}

/** The error every history read throws when the store cannot be reached (also the 503's documented example). */
export const storeUnavailable = () =>
  new HistoryStoreUnavailableError(
    'The history database cannot be reached; retry shortly.',
    STORE_RETRY_AFTER_SECONDS,
  );

/**
 * Reads bucketed mainnet history for a range ending now (SPEC 2.9, decision 9).
 * @throws HistoryStoreUnavailableError when the store cannot be read.
 */
export async function getGasHistory(
  deps: Pick<AppDeps, 'withDb' | 'log' | 'now' | 'cache'>,
  range: HistoryRange,
): Promise<GasHistory> {
  return deps.cache.get(`gas-history:${range}`, HISTORY_TTL_MS, async () => {
    const now = deps.now();
    const bucketSeconds = chooseBucketSeconds(RANGE_SECONDS[range]);
    const { buckets, latestReadAt } = await readHistoryStore(deps, (db) =>
      readBucketedHistory(db, { ...rangeWindow(range, now), bucketSeconds }),
    );
    return { range, bucketSeconds, buckets, updatedAt: latestReadAt ?? now };
  });
}
