import { and, asc, desc, eq, gt, lt } from 'drizzle-orm';
import { backtestSummaries, replayedForecasts } from '../../drizzle/schema';
import type { AccuracyFigures, ScorableForecast } from '../forecast/accuracy';
import type { AccuracyWindow } from '../schemas/forecast-accuracy';
import type { Database } from './database';
import { FORECAST_RETENTION_DAYS } from './hourly-forecasts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Tells whether the back-test of `hourMs` has been summarised: both windows' summaries are written
 * in one transaction, so one row says so. The scheduler's every tick asks this and nothing more
 * once the hour is done.
 */
export async function hasBacktestSummary(db: Database, hourMs: number): Promise<boolean> {
  const rows = await db
    .select({ hour: backtestSummaries.hour })
    .from(backtestSummaries)
    .where(eq(backtestSummaries.hour, new Date(hourMs)))
    .limit(1);
  return rows.length > 0;
}

/** The origin hours (epoch ms) of the replayed forecasts made after `fromMs`, oldest first. */
export async function readReplayedOrigins(db: Database, fromMs: number): Promise<number[]> {
  const rows = await db
    .select({ originHour: replayedForecasts.originHour })
    .from(replayedForecasts)
    .where(gt(replayedForecasts.originHour, new Date(fromMs)))
    .orderBy(asc(replayedForecasts.originHour));
  return rows.map((row) => row.originHour.getTime());
}

/**
 * Stores replayed forecasts, keeping only what the scorer reads (each point's average and
 * confidence, the decision's choice); an hour already stored (by an overlapping run) is kept as it
 * is. Rows go in key order, so overlapping writers of the same hours wait for each other instead
 * of deadlocking. Returns how many this call wrote.
 */
export async function insertReplayedForecasts(
  db: Database,
  forecasts: readonly ScorableForecast[],
  replayedAt: number,
): Promise<number> {
  if (forecasts.length === 0) return 0;
  const written = await db
    .insert(replayedForecasts)
    .values(
      [...forecasts]
        .sort((a, b) => a.originHour - b.originHour)
        .map((forecast) => ({
          originHour: new Date(forecast.originHour),
          replayedAt: new Date(replayedAt),
          currentAverageGwei: forecast.current,
          points: forecast.points.map(({ average, confidence }) => ({ average, confidence })),
          decision: {
            recommendation: forecast.decision.recommendation,
            nextBestAt: forecast.decision.nextBestAt,
          },
          outcome: forecast.outcome,
        })),
    )
    .onConflictDoNothing()
    .returning({ originHour: replayedForecasts.originHour });
  return written.length;
}

/** Reads the replayed forecasts made after `fromMs`, oldest first, ready for the scorer. */
export async function readReplayedForecasts(db: Database, fromMs: number): Promise<ScorableForecast[]> {
  const rows = await db
    .select()
    .from(replayedForecasts)
    .where(gt(replayedForecasts.originHour, new Date(fromMs)))
    .orderBy(asc(replayedForecasts.originHour));
  return rows.map((row) => ({
    originHour: row.originHour.getTime(),
    current: row.currentAverageGwei,
    points: row.points,
    decision: row.decision,
    outcome: row.outcome,
  }));
}

/**
 * Stores the back-test summary of each window for `hourMs`, unless that window's hour is stored
 * already (by an overlapping run). Returns the windows this call wrote.
 */
export async function insertBacktestSummaries(
  db: Database,
  hourMs: number,
  figures: Readonly<Record<AccuracyWindow, AccuracyFigures>>,
  computedAt: number,
): Promise<AccuracyWindow[]> {
  if (hourMs % HOUR_MS !== 0) throw new RangeError(`${hourMs} is not the start of an hour`);
  const written = await db
    .insert(backtestSummaries)
    .values(
      Object.entries(figures).map(([window, windowFigures]) => ({
        window,
        hour: new Date(hourMs),
        computedAt: new Date(computedAt),
        figures: windowFigures,
      })),
    )
    .onConflictDoNothing()
    .returning({ window: backtestSummaries.window });
  return written.map((row) => row.window as AccuracyWindow);
}

/** The newest back-test summary of `window` made after `fromMs`, or null when none is stored. */
export async function readBacktestSummary(
  db: Database,
  window: AccuracyWindow,
  fromMs: number,
): Promise<{ hour: number; figures: AccuracyFigures } | null> {
  const [row] = await db
    .select({ hour: backtestSummaries.hour, figures: backtestSummaries.figures })
    .from(backtestSummaries)
    .where(and(eq(backtestSummaries.window, window), gt(backtestSummaries.hour, new Date(fromMs))))
    .orderBy(desc(backtestSummaries.hour))
    .limit(1);
  return row ? { hour: row.hour.getTime(), figures: row.figures } : null;
}

/**
 * Deletes replayed forecasts and summaries older than the retention window (as long as stored
 * forecasts are kept), counted back from `nowMs`; returns how many rows went.
 */
export async function pruneBacktest(
  db: Database,
  nowMs: number,
  retentionDays: number = FORECAST_RETENTION_DAYS,
): Promise<number> {
  const before = new Date(nowMs - retentionDays * DAY_MS);
  const replays = await db
    .delete(replayedForecasts)
    .where(lt(replayedForecasts.originHour, before))
    .returning({ originHour: replayedForecasts.originHour });
  const summaries = await db
    .delete(backtestSummaries)
    .where(lt(backtestSummaries.hour, before))
    .returning({ hour: backtestSummaries.hour });
  return replays.length + summaries.length;
}
