import { yieldToEventLoop } from '../lib/async';
import type { AppDeps } from '../lib/deps';
import { type AccuracyFigures, type ScorableForecast, scoreForecasts } from '../lib/forecast/accuracy';
import { replayableOrigins, replayOrigins } from '../lib/forecast/accuracy-replay';
import { forecastModelVersion } from '../lib/forecast/model-version';
import { DEFAULT_FORECAST_PARAMS, type ForecastParams } from '../lib/forecast/params';
import type { HourlyGasPoint } from '../lib/forecast/types';
import { ACCURACY_WINDOWS, type AccuracyWindow } from '../lib/schemas/forecast-accuracy';
import { ACCURACY_WINDOW_HOURS } from '../lib/services/forecast-accuracy';
import { FORECAST_HISTORY_DAYS } from '../lib/services/forecast-history';
import {
  insertBacktestSummaries,
  insertReplayedForecasts,
  pruneBacktest,
  readBacktestProgress,
  readReplayedForecasts,
  readReplayedOrigins,
} from '../lib/store/backtest-replays';
import { describeDbError } from '../lib/store/database';
import { readHourlyHistory } from '../lib/store/history-queries';
import { HISTORY_RETENTION_DAYS } from '../lib/store/history-writes';
import { SCORING_DELAY_MS } from './forecast-job';

const HOUR_MS = 3_600_000;
// 4 to 10 ms of CPU per origin: a slice holds the event loop for some 20 to 40 ms.
const REPLAY_SLICE = 4;
const LONGEST_WINDOW = ACCURACY_WINDOWS.reduce((a, b) =>
  ACCURACY_WINDOW_HOURS[b] > ACCURACY_WINDOW_HOURS[a] ? b : a,
);
const LONGEST_WINDOW_HOURS = ACCURACY_WINDOW_HOURS[LONGEST_WINDOW];

/**
 * Hours of stored history, back from the hour a run works for, that it counts to tell whether history
 * was stored since the hour's summary: those the snapshot job's pruning (35 days) cannot reach before
 * the hour's last tick (65 minutes after it began), with an hour's margin for the hosts' clocks. So
 * only hours stored change the count, never hours pruned. An hour imported older than that is pruned
 * within two hours anyway.
 */
const COUNTED_HOURS = HISTORY_RETENTION_DAYS.mainnet * 24 - 2;

/**
 * Origins one run replays at most: some 0.4 to 1 s of CPU (4 to 10 ms each, `npm run bench --
 * forecast-accuracy`), well inside a Worker Cron Trigger's CPU limit. A deployment that imported or
 * backfilled a month of history, or changed the model, replays its ~700 origins over the next few
 * minutes' ticks; after that each hour adds one.
 */
export const REPLAY_BATCH = 100;

/** What one run did; returned for tests and summarised in the log. */
export interface BacktestJobResult {
  /** The hour whose summary the run works towards. */
  hour: number;
  /** Replayed forecasts this run stored. */
  replayed: number;
  /** Replayable origins of the window still to replay after this run (later ticks do them). */
  backlog: number;
  /**
   * `exists`: stored before (by an earlier or a concurrent run); `pending`: the backlog comes first;
   * `none`: nothing replayable is stored yet, so no summary is kept and the next tick looks again.
   */
  summary: 'written' | 'exists' | 'pending' | 'none';
  /** Replayed forecasts and summaries deleted for being older than the retention window. */
  pruned: number;
}

/** The history store failed during a run; nothing of the run was stored and the next run retries. */
export class BacktestStoreError extends Error {
  override name = 'BacktestStoreError';
}

/**
 * Keeps the back-test of the stored history that /api/forecast-accuracy answers with until enough
 * live forecasts are scored (SPEC extension 18), so that no request ever replays. Each past hour is
 * replayed once per model version (lib/forecast/model-version.ts), the first run after its 24 hours
 * are over (plus the scoring delay), from the history stored then, and stored; a replay by another
 * model (before a deployment that changed the forecaster) is due again and replaced. Once none is
 * left to replay, each window's replayed forecasts are scored and the summary stored for the hour,
 * the model and the count of stored hours, unless nothing was (then the next tick looks again). A
 * tick that finds its hour summarised by its model from as many stored hours as are stored now
 * costs one query; history imported or backfilled since raises the count, and the run replays what
 * it adds and summarises again, so it is scored within minutes, not the next hour.
 * Keys on the origin hour (with the model version) and on (hour, model, window, stored hours) make
 * any number of overlapping runs store each once.
 */
export async function runBacktestJob(
  deps: Pick<AppDeps, 'withDb' | 'now' | 'log'>,
  firedAt: number,
  batchSize = REPLAY_BATCH,
): Promise<BacktestJobResult> {
  // Ticks in the first minutes of an hour still work for the hour before: the last hour to judge
  // has ended, but its last snapshots may still be coming.
  const hour = Math.floor((firedAt - SCORING_DELAY_MS) / HOUR_MS) * HOUR_MS;
  const fromMs = hour - LONGEST_WINDOW_HOURS * HOUR_MS;
  const countFromMs = hour - COUNTED_HOURS * HOUR_MS;
  const params: ForecastParams = DEFAULT_FORECAST_PARAMS;
  const modelVersion = forecastModelVersion(params);
  const at = new Date(hour).toISOString();
  try {
    const work = await deps.withDb(async (db) => {
      const { summarisedHours, storedHours } = await readBacktestProgress(
        db,
        hour,
        modelVersion,
        countFromMs,
      );
      // Summarised by this model, and no hour of history stored since: the common tick.
      if (summarisedHours !== null && storedHours <= summarisedHours) return null;
      const since = fromMs - FORECAST_HISTORY_DAYS * 24 * HOUR_MS;
      const { hours } = await readHourlyHistory(db, since);
      const stored = new Set(await readReplayedOrigins(db, fromMs, modelVersion));
      // The hour under way is not over: its mean is neither an outcome nor history yet.
      const complete = hours.filter((point) => point.time < hour);
      // Counted as readBacktestProgress counts, from the hours this run replays and summarises.
      const historyHours = complete.filter((point) => point.time >= countFromMs).length;
      const due = replayableOrigins(complete, fromMs + 1).filter((origin) => !stored.has(origin));
      return { complete, due, historyHours };
    });
    if (!work) return { hour, replayed: 0, backlog: 0, summary: 'exists', pruned: 0 };
    const batch = pickAtRandom(work.due, batchSize);
    const replayed = await replayInSlices(work.complete, batch, params);
    const backlog = work.due.length - batch.length;
    const result = await deps.withDb((db) =>
      db.transaction(async (tx) => {
        const written = await insertReplayedForecasts(tx, replayed, modelVersion, deps.now());
        const pruned = await pruneBacktest(tx, deps.now());
        if (backlog > 0) return { hour, replayed: written, backlog, summary: 'pending', pruned } as const;
        const forecasts = await readReplayedForecasts(tx, fromMs, modelVersion);
        const figures = summarise(forecasts, hour);
        // An empty summary would stand for the whole hour: history imported or backfilled minutes
        // later would go unscored until the next one. The endpoint says "nothing scored" without it.
        if (figures[LONGEST_WINDOW].origins === 0) {
          return { hour, replayed: written, backlog, summary: 'none', pruned } as const;
        }
        const basis = { modelVersion, historyHours: work.historyHours };
        const summarised = await insertBacktestSummaries(tx, hour, basis, figures, deps.now());
        const summary = summarised.length > 0 ? 'written' : 'exists';
        return { hour, replayed: written, backlog, summary, pruned } as const;
      }),
    );
    // A tick that found nothing to replay (under 8 days stored) logs nothing: it repeats every tick.
    if (result.summary !== 'none' || result.replayed > 0 || result.pruned > 0) {
      deps.log.info('backtest', { ...result, hour: at, model: modelVersion });
    }
    return result;
  } catch (error) {
    const reason = describeDbError(error);
    deps.log.error('backtest not stored; the next run retries', { hour: at, error: reason });
    throw new BacktestStoreError(`back-test of ${at} not stored: ${reason}`);
  }
}

/** Scores each window's part of the replayed forecasts: those made in the window ending at `hour`. */
function summarise(
  forecasts: readonly ScorableForecast[],
  hour: number,
): Record<AccuracyWindow, AccuracyFigures> {
  const figures = {} as Record<AccuracyWindow, AccuracyFigures>;
  for (const window of ACCURACY_WINDOWS) {
    const from = hour - ACCURACY_WINDOW_HOURS[window] * HOUR_MS;
    figures[window] = scoreForecasts(forecasts.filter((forecast) => forecast.originHour > from));
  }
  return figures;
}

/**
 * Replays `origins` a slice at a time and yields in between, so that on the Node host, where the
 * scheduler shares the process with requests, a run's replay delays no request by more than a slice.
 */
async function replayInSlices(
  hours: readonly HourlyGasPoint[],
  origins: readonly number[],
  params: ForecastParams,
): Promise<ScorableForecast[]> {
  const replayed: ScorableForecast[] = [];
  for (let i = 0; i < origins.length; i += REPLAY_SLICE) {
    replayed.push(...replayOrigins(hours, origins.slice(i, i + REPLAY_SLICE), params));
    await yieldToEventLoop();
  }
  return replayed;
}

/**
 * Up to `size` of `origins`, taken at random: the summary waits for all of them anyway, and runs that
 * overlap (a fleet of Node hosts sharing one database ticks together) then mostly replay different
 * hours instead of all the same ones.
 */
function pickAtRandom(origins: readonly number[], size: number): number[] {
  const pool = [...origins];
  const count = Math.min(size, pool.length);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(Math.random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j] as number, pool[i] as number];
  }
  return pool.slice(0, count);
}
