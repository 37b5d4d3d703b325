import { yieldToEventLoop } from '../async';
import { type AppDeps, getState } from '../deps';
import {
  type AccuracyFigures,
  SCORED_HOURS,
  type ScorableForecast,
  scoreForecasts,
} from '../forecast/accuracy';
import { replayForecasts } from '../forecast/accuracy-replay';
import type { HourlyGasPoint } from '../forecast/types';
import type { AccuracyWindow } from '../schemas/forecast-accuracy';
import { readHourlyHistory } from '../store/history-queries';
import { readScoredForecasts } from '../store/hourly-forecasts';
import { FORECAST_HISTORY_DAYS } from './forecast-history';
import { readHistoryStore } from './gas-history';

/**
 * Scored live forecasts a window needs before its figures come from them rather than from a replay
 * of the stored history: one day of hourly forecasts. Fewer is too few to judge MAE or calibration
 * (a single day's weather dominates), while the replay scores every stored hour that has a week of
 * history before it.
 */
export const LIVE_MIN_FORECASTS = 24;

const HOUR_MS = 3_600_000;
const WINDOW_HOURS: Readonly<Record<AccuracyWindow, number>> = { '7d': 7 * 24, '30d': 30 * 24 };
// Live figures change once an hour, when the scheduler scores the next forecast.
const TTL_MS = 60_000;
// 5 to 10 ms of CPU per replayed origin: a slice holds the event loop for some 20 to 40 ms.
const REPLAY_SLICE_HOURS = 4;

/** The accuracy of the service's forecasts over a window, before the envelope. */
export interface ForecastAccuracy extends AccuracyFigures {
  window: AccuracyWindow;
  source: 'live' | 'backtest';
  /** When the newest figure was known: the last scoring, the end of the last replayed hour, or now. */
  updatedAt: number;
}

/**
 * Scores the service's forecasts made in the window (SPEC extension 18): the stored live ones when at
 * least LIVE_MIN_FORECASTS have been scored, else a replay of the stored history when it scores more
 * forecasts than the live ones do. Answers once per minute per window and process; an unreachable
 * store is the history endpoints' 503.
 */
export function getForecastAccuracy(
  deps: Pick<AppDeps, 'cache' | 'withDb' | 'now' | 'log' | 'state'>,
  window: AccuracyWindow,
): Promise<ForecastAccuracy> {
  return deps.cache.get(`forecast-accuracy:${window}`, TTL_MS, async () => {
    const now = deps.now();
    const fromMs = now - WINDOW_HOURS[window] * HOUR_MS;
    const live = await readHistoryStore(deps, (db) => readScoredForecasts(db, fromMs));
    const liveFigures = scoreForecasts(live.forecasts);
    const liveAnswer: ForecastAccuracy = {
      window,
      source: 'live',
      ...liveFigures,
      updatedAt: live.latestScoredAt ?? now,
    };
    if (liveFigures.origins >= LIVE_MIN_FORECASTS) return liveAnswer;
    const replayed = scoreForecasts(
      (await replayStoredHistory(deps, now)).filter((forecast) => forecast.originHour > fromMs),
    );
    if (replayed.origins <= liveFigures.origins) return liveAnswer;
    const lastHourEnd = replayed.scoredTo
      ? Date.parse(replayed.scoredTo) + (SCORED_HOURS + 1) * HOUR_MS
      : now;
    return { window, source: 'backtest', ...replayed, updatedAt: lastHourEnd };
  });
}

/**
 * Replays the forecasts of the longest window from the stored hourly history (each window scores
 * its own part of them). The replay costs one forecast per hour of the window (5 to 10 ms each, see
 * `npm run bench -- forecast-accuracy`), so it is kept for the rest of the hour in each process and
 * made again when the stored hours change in number (an import or a backfill). It is needed only
 * until a deployment has scored LIVE_MIN_FORECASTS live forecasts, about two days after it starts.
 */
async function replayStoredHistory(
  deps: Pick<AppDeps, 'withDb' | 'log' | 'state'>,
  now: number,
): Promise<ScorableForecast[]> {
  const nowHour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const fromMs = now - Math.max(...Object.values(WINDOW_HOURS)) * HOUR_MS;
  const since = fromMs - FORECAST_HISTORY_DAYS * 24 * HOUR_MS;
  const { hours } = await readHistoryStore(deps, (db) => readHourlyHistory(db, since));
  // The hour under way is not over: its mean is neither an outcome nor history yet.
  const complete = hours.filter((hour) => hour.time < nowHour);
  const stamp = `${nowHour}:${complete.length}`;
  const memo = getState(deps, 'forecast-accuracy-replay', () => ({
    stamp: '',
    replayed: Promise.resolve([] as ScorableForecast[]),
  }));
  if (memo.stamp !== stamp) {
    memo.stamp = stamp;
    memo.replayed = replayInSlices(complete, fromMs, nowHour);
    // A replay that failed is not kept: the next request tries again.
    memo.replayed.catch(() => {
      if (memo.stamp === stamp) memo.stamp = '';
    });
  }
  return memo.replayed;
}

/**
 * Replays `REPLAY_SLICE_HOURS` origins at a time and yields between slices, so that the seconds of
 * CPU a 30-day replay takes never hold other requests for more than a slice (a few tens of ms).
 */
async function replayInSlices(
  hours: readonly HourlyGasPoint[],
  fromMs: number,
  toMs: number,
): Promise<ScorableForecast[]> {
  const replayed: ScorableForecast[] = [];
  for (let from = fromMs; from < toMs; from += REPLAY_SLICE_HOURS * HOUR_MS) {
    replayed.push(...replayForecasts(hours, from, Math.min(toMs, from + REPLAY_SLICE_HOURS * HOUR_MS)));
    await yieldToEventLoop();
  }
  return replayed;
}
