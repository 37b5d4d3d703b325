import type { AppDeps } from '../deps';
import { type AccuracyFigures, SCORED_HOURS, scoreForecasts } from '../forecast/accuracy';
import { forecastModelVersion } from '../forecast/model-version';
import { type AccuracyWindow, ForecastAccuracyResponseSchema } from '../schemas/forecast-accuracy';
import { readBacktestSummary } from '../store/backtest-replays';
import { readScoredForecasts } from '../store/hourly-forecasts';
import { readHistoryStore } from './gas-history';

/**
 * Scored live forecasts a window needs before its figures come from them rather than from the
 * back-test of the stored history: one day of hourly forecasts. Fewer is too few to judge MAE or
 * calibration (a single day's weather dominates), while the back-test scores every stored hour that
 * has a week of history before it.
 */
export const LIVE_MIN_FORECASTS = 24;

const HOUR_MS = 3_600_000;
/** Hours each accuracy window covers, ending now. */
export const ACCURACY_WINDOW_HOURS: Readonly<Record<AccuracyWindow, number>> = {
  '7d': 7 * 24,
  '30d': 30 * 24,
};
// Live figures change once an hour, when the scheduler scores the next forecast.
const TTL_MS = 60_000;

/** The accuracy of the service's forecasts over a window, before the envelope. */
export interface ForecastAccuracy extends AccuracyFigures {
  window: AccuracyWindow;
  source: 'live' | 'backtest';
  /** When the newest figure was known: the last scoring, the end of the last replayed hour, or now. */
  updatedAt: number;
}

/**
 * Scores the service's forecasts made in the window (SPEC extension 18): the stored live ones when at
 * least LIVE_MIN_FORECASTS have been scored, else the newest back-test summary the scheduled job
 * stored for the window (cron/backtest-job.ts) by this process's model when it scores more forecasts
 * than the live ones do: none of another model's (while the job replays the stored hours again after
 * the model changed, the live figures are served). Only reads: no forecast is replayed on a request.
 * Answers once per minute per window and process; an unreachable store is the history endpoints' 503.
 */
export function getForecastAccuracy(
  deps: Pick<AppDeps, 'cache' | 'withDb' | 'now' | 'log'>,
  window: AccuracyWindow,
): Promise<ForecastAccuracy> {
  return deps.cache.get(`forecast-accuracy:${window}`, TTL_MS, async () => {
    const now = deps.now();
    const fromMs = now - ACCURACY_WINDOW_HOURS[window] * HOUR_MS;
    const { live, latestScoredAt, backtest } = await readHistoryStore(deps, async (db) => {
      const scored = await readScoredForecasts(db, fromMs);
      const live = scoreForecasts(scored.forecasts);
      const enough = live.origins >= LIVE_MIN_FORECASTS;
      const backtest = enough ? null : await readBacktestSummary(db, window, fromMs, forecastModelVersion());
      return { live, latestScoredAt: scored.latestScoredAt, backtest };
    });
    const figures = backtest && insideWindow(readStoredFigures(deps, backtest.figures), fromMs);
    if (!figures || figures.origins <= live.origins) {
      return { window, source: 'live', ...live, updatedAt: latestScoredAt ?? now };
    }
    // The newest figure is the outcome of the last replayed forecast's last hour.
    const lastHourEnd = figures.scoredTo ? Date.parse(figures.scoredTo) + (SCORED_HOURS + 1) * HOUR_MS : now;
    return { window, source: 'backtest', ...figures, updatedAt: lastHourEnd };
  });
}

/**
 * How far before the window a stored summary's oldest scored forecast may lie. The newest summary is
 * an hour old in the minutes before the job summarises the new hour, and a tick or two may fail; a
 * summary older than this scores forecasts the window no longer holds, and is not served.
 */
const SUMMARY_SLACK_MS = 3 * HOUR_MS;

/**
 * A summary's figures when the forecasts it scored were made in the window, by origin hour as the
 * live forecasts are counted (from the hour the window starts in), give or take SUMMARY_SLACK_MS.
 */
function insideWindow(figures: AccuracyFigures | null, fromMs: number): AccuracyFigures | null {
  if (!figures?.scoredFrom) return figures;
  const windowHour = Math.floor(fromMs / HOUR_MS) * HOUR_MS;
  return Date.parse(figures.scoredFrom) >= windowHour - SUMMARY_SLACK_MS ? figures : null;
}

/** The figures of a response, as a stored summary must hold them. */
const StoredFiguresSchema = ForecastAccuracyResponseSchema.pick({
  origins: true,
  mae: true,
  maeByLeadHours: true,
  calibration: true,
  decision: true,
  scoredFrom: true,
  scoredTo: true,
});

/**
 * Checks a stored summary against the response's own schema: one written by another version of the
 * code (during a deployment) that does not fit is not served; the job writes a new one within the hour.
 */
function readStoredFigures(deps: Pick<AppDeps, 'log'>, stored: unknown): AccuracyFigures | null {
  const parsed = StoredFiguresSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  deps.log.warn('forecast accuracy: a stored back-test summary does not fit; not served');
  return null;
}
