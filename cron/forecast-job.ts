import type { AppDeps } from '../lib/deps';
import { type ForecastOutcome, measureOutcome, SCORED_HOURS } from '../lib/forecast/accuracy';
import { type GasPredictions, getGasPredictions } from '../lib/services/gas-predictions';
import { describeDbError } from '../lib/store/database';
import { readHourlyHistory } from '../lib/store/history-queries';
import {
  type HourlyForecastRow,
  insertHourlyForecast,
  pruneForecasts,
  readForecastWork,
  recordForecastOutcome,
} from '../lib/store/hourly-forecasts';

const HOUR_MS = 3_600_000;
/**
 * A forecast is scored this long after its last hour ends, so that hour's last 90-second snapshot
 * (written by a tick inside its slot, or a late one) is stored before the hour's mean is taken.
 */
export const SCORING_DELAY_MS = 5 * 60_000;

/** What one run did; returned for tests and summarised in the log. */
export interface ForecastJobResult {
  /** Start (epoch ms) of the hour holding the tick. */
  originHour: number;
  /** `exists`: stored before (by an earlier or a concurrent run); `skipped`: no forecast could be served. */
  stored: 'written' | 'exists' | 'skipped';
  /** Origin hours of the forecasts this run scored. */
  scored: number[];
  /** Forecasts deleted for being older than the retention window. */
  pruned: number;
}

/** The history store failed during a run; nothing of the run was stored and the next run retries. */
export class ForecastStoreError extends Error {
  override name = 'ForecastStoreError';
}

/**
 * Stores, once per hour, the 24-hour forecast the service serves in that hour, and scores each
 * stored forecast once its 24 hours have happened (SPEC extension 18). A tick that finds its hour
 * stored and nothing due costs one query. The forecast comes through gas-predictions' own coalesced
 * path, so it is the one clients see and costs no upstream read while that path's cache holds it.
 * The writes and the pruning share one transaction; the origin hour's primary key and the
 * "not yet scored" condition make any number of overlapping runs write each at most once.
 */
export async function runForecastJob(deps: AppDeps, firedAt: number): Promise<ForecastJobResult> {
  const originHour = Math.floor(firedAt / HOUR_MS) * HOUR_MS;
  const dueBy = firedAt - (SCORED_HOURS + 1) * HOUR_MS - SCORING_DELAY_MS;
  const hour = new Date(originHour).toISOString();
  try {
    const work = await deps.withDb((db) => readForecastWork(db, originHour, dueBy));
    const served = work.stored ? undefined : await readServedForecast(deps, originHour);
    if (served && 'skipped' in served) {
      deps.log.warn('forecast: not stored this tick', { hour, reason: served.skipped });
    }
    const row = served && 'row' in served ? served.row : undefined;
    const result = await deps.withDb(async (db) => {
      const outcomes = work.due.length > 0 ? await measureOutcomes(db, work.due) : [];
      const outcome = work.stored ? 'exists' : 'skipped';
      if (!row && outcomes.length === 0) {
        return { originHour, stored: outcome, scored: [], pruned: 0 } satisfies ForecastJobResult;
      }
      return db.transaction(async (tx) => {
        const written = row ? await insertHourlyForecast(tx, row) : false;
        // Pruned first: a forecast past the retention window is deleted, not scored.
        const pruned = await pruneForecasts(tx, deps.now());
        const scored: number[] = [];
        for (const { origin, outcome } of outcomes) {
          if (await recordForecastOutcome(tx, origin, outcome, deps.now())) scored.push(origin);
        }
        return {
          originHour,
          stored: written ? 'written' : row ? 'exists' : outcome,
          scored,
          pruned,
        } satisfies ForecastJobResult;
      });
    });
    deps.log.info('forecast', {
      hour,
      stored: result.stored,
      scored: result.scored.length,
      pruned: result.pruned,
    });
    return result;
  } catch (error) {
    const reason = describeDbError(error);
    deps.log.error('forecast not stored or scored; the next run retries', { hour, error: reason });
    throw new ForecastStoreError(`forecast of ${hour} not stored or scored: ${reason}`);
  }
}

/**
 * Reads the 24-hour forecast the service serves now and shapes the row to store for `originHour`,
 * or says why there is none (the service makes a forecast again once the hour has turned, so only a
 * tick whose hour turns during the read finds one of another hour).
 */
async function readServedForecast(
  deps: AppDeps,
  originHour: number,
): Promise<{ row: HourlyForecastRow } | { skipped: string }> {
  const madeThisHour = (p: GasPredictions) =>
    Date.parse(p.predictions[0]?.timestamp ?? '') === originHour + HOUR_MS;
  let served: GasPredictions;
  try {
    served = await getGasPredictions(deps, '24h');
  } catch {
    // The service could not forecast (no live or recent reading); a later tick in the hour retries.
    return { skipped: 'no forecast served' };
  }
  if (!madeThisHour(served) || served.predictions.length !== SCORED_HOURS) {
    return { skipped: 'the forecast served belongs to another hour' };
  }
  return {
    row: {
      originHour,
      issuedAt: deps.now(),
      currentAverageGwei: served.current.average,
      currentReadAt: Date.parse(served.current.updatedAt),
      currentSource: served.current.source,
      points: served.predictions.map(({ timestamp, low, average, high, confidence }) => ({
        timestamp,
        low,
        average,
        high,
        confidence,
      })),
      decision: {
        recommendation: served.decision.recommendation,
        expectedSavingsPct: served.decision.expectedSavingsPct,
        expectedGas: served.decision.expectedGas,
        nextBestAt: served.decision.nextBestAt,
        confidence: served.decision.confidence,
      },
      usingFallbackData: served.usingFallbackData,
      dataPoints: served.dataPoints,
    },
  };
}

/**
 * Measures what happened after each due forecast from the stored snapshots' hourly means of the
 * average tier, the hourly points the forecaster itself learns from. Hours with no snapshot stay null.
 */
async function measureOutcomes(
  db: Parameters<typeof readHourlyHistory>[0],
  due: readonly number[],
): Promise<{ origin: number; outcome: ForecastOutcome }[]> {
  const earliest = Math.min(...due) - SCORED_HOURS * HOUR_MS;
  const { hours } = await readHourlyHistory(db, earliest);
  const byHour = new Map(hours.map((point) => [point.time, point.average]));
  return due.map((origin) => ({ origin, outcome: measureOutcome(origin, (time) => byHour.get(time)) }));
}
