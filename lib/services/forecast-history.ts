import { settleWithin } from '../async';
import type { AppDeps } from '../deps';
import type { HourlyGasPoint } from '../forecast';
import { describeDbError, STORE_READ_DEADLINE_MS } from '../store/database';
import { readFirstSnapshotAt, readHourlyHistory } from '../store/history-queries';
import { roundGweiToWei } from '../units';

/** How far back the forecaster looks: four weeks for the weekly shape, two more for its error replay. */
export const FORECAST_HISTORY_DAYS = 35;
const TTL_MS = 30_000;

/** Hourly mainnet history as the forecaster and the hourly history fields use it. */
export interface ForecastHistory {
  hours: HourlyGasPoint[];
  /** Stored snapshots behind `hours`. */
  snapshotCount: number;
  /**
   * When the stored history begins (its oldest snapshot), read only while that may be under
   * YOUNG_HISTORY_DAYS ago; null for an older history or none. Hourly means cannot tell it: the
   * oldest hour may hold a part of an hour.
   */
  startedAt: number | null;
}

/** A history whose oldest hour is within this many days may be under 7 days old to the minute. */
const YOUNG_HISTORY_DAYS = 8;

/**
 * Reads the hourly history once per 30 s per process, whatever the number of requests. An
 * unreachable store (or one with no answer within STORE_READ_DEADLINE_MS) is not an error here:
 * the forecast falls back to its built-in profile.
 */
export function getForecastHistory(
  deps: Pick<AppDeps, 'cache' | 'withDb' | 'now' | 'log'>,
): Promise<ForecastHistory> {
  return deps.cache.get('forecast-history', TTL_MS, async () => {
    const since = deps.now() - FORECAST_HISTORY_DAYS * 86_400_000;
    try {
      const young = deps.now() - YOUNG_HISTORY_DAYS * 86_400_000;
      return await settleWithin(
        deps.withDb(async (db) => {
          const { hours, snapshotCount } = await readHourlyHistory(db, since);
          const first = hours[0];
          // Only an age check: a failed read of it leaves the whole-hours count alone to decide.
          const startedAt =
            first && first.time > young ? await readFirstSnapshotAt(db).catch(() => null) : null;
          return { hours, snapshotCount, startedAt };
        }),
        STORE_READ_DEADLINE_MS,
      );
    } catch (error) {
      deps.log.warn('history store unavailable for the forecast', { error: describeDbError(error) });
      return { hours: [], snapshotCount: 0, startedAt: null };
    }
  });
}

/**
 * The hourly `{timestamp, gasPrice}` points of the stored average tier from `sinceMs` on, oldest first,
 * each hour's mean to the wei (a sum over a count leaves floating-point noise past it).
 */
export function selectHourlyPoints(history: ForecastHistory, sinceMs: number) {
  return history.hours
    .filter((hour) => hour.time >= sinceMs)
    .map((hour) => ({
      timestamp: new Date(hour.time).toISOString(),
      gasPrice: roundGweiToWei(hour.average),
    }));
}
