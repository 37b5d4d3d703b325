import { and, asc, desc, eq, gt, gte, lt, max, ne, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { backtestSummaries, mainnetHourly, replayedForecasts } from '../../drizzle/schema';
import type { AccuracyFigures, ScorableForecast } from '../forecast/accuracy';
import type { AccuracyWindow } from '../schemas/forecast-accuracy';
import type { Database } from './database';
import { FORECAST_RETENTION_DAYS } from './hourly-forecasts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Where the back-test of an hour stands for one model: see readBacktestProgress. */
export interface BacktestProgress {
  /** The most stored hours a summary of the hour by the model was made from; null when none is stored. */
  summarisedHours: number | null;
  /** The stored hours of history from `countFromMs` to the hour (exclusive), now. */
  storedHours: number;
}

/**
 * Tells whether the back-test of `hourMs` by `modelVersion` has been summarised, and from how many
 * stored hours of history (those from `countFromMs` to the hour), against how many are stored now:
 * more stored than summarised means history came since (an import, a backfill) that may hold hours to
 * replay. Both windows' summaries are written in one transaction, so either tells. One query: the
 * scheduler's every tick asks this, and nothing more once the hour is done and no history came.
 */
export async function readBacktestProgress(
  db: Database,
  hourMs: number,
  modelVersion: string,
  countFromMs: number,
): Promise<BacktestProgress> {
  const [row] = await db
    .select({
      summarisedHours: max(backtestSummaries.historyHours),
      storedHours: db.$count(
        mainnetHourly,
        and(gte(mainnetHourly.hour, new Date(countFromMs)), lt(mainnetHourly.hour, new Date(hourMs))),
      ),
    })
    .from(backtestSummaries)
    .where(
      and(eq(backtestSummaries.hour, new Date(hourMs)), eq(backtestSummaries.modelVersion, modelVersion)),
    );
  return { summarisedHours: row?.summarisedHours ?? null, storedHours: row?.storedHours ?? 0 };
}

/** The origin hours (epoch ms) of the forecasts `modelVersion` replayed after `fromMs`, oldest first. */
export async function readReplayedOrigins(
  db: Database,
  fromMs: number,
  modelVersion: string,
): Promise<number[]> {
  const rows = await db
    .select({ originHour: replayedForecasts.originHour })
    .from(replayedForecasts)
    .where(
      and(
        gt(replayedForecasts.originHour, new Date(fromMs)),
        eq(replayedForecasts.modelVersion, modelVersion),
      ),
    )
    .orderBy(asc(replayedForecasts.originHour));
  return rows.map((row) => row.originHour.getTime());
}

/** The value an `INSERT … ON CONFLICT DO UPDATE` would have written to `column`. */
const excluded = (column: PgColumn) => sql`excluded.${sql.identifier(column.name)}`;

/**
 * Stores forecasts `modelVersion` replayed, keeping only what the scorer reads (each point's average
 * and confidence, the decision's choice). An hour stored by another model version is replaced; one
 * already stored by this one (by an overlapping run) is kept as it is. Rows go in key order, so
 * overlapping writers of the same hours wait for each other instead of deadlocking. Returns how many
 * this call wrote.
 */
export async function insertReplayedForecasts(
  db: Database,
  forecasts: readonly ScorableForecast[],
  modelVersion: string,
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
          modelVersion,
          currentAverageGwei: forecast.current,
          points: forecast.points.map(({ average, confidence }) => ({ average, confidence })),
          decision: {
            recommendation: forecast.decision.recommendation,
            nextBestAt: forecast.decision.nextBestAt,
          },
          outcome: forecast.outcome,
        })),
    )
    .onConflictDoUpdate({
      target: replayedForecasts.originHour,
      set: {
        replayedAt: excluded(replayedForecasts.replayedAt),
        modelVersion: excluded(replayedForecasts.modelVersion),
        currentAverageGwei: excluded(replayedForecasts.currentAverageGwei),
        points: excluded(replayedForecasts.points),
        decision: excluded(replayedForecasts.decision),
        outcome: excluded(replayedForecasts.outcome),
      },
      setWhere: ne(replayedForecasts.modelVersion, excluded(replayedForecasts.modelVersion)),
    })
    .returning({ originHour: replayedForecasts.originHour });
  return written.length;
}

/** Reads the forecasts `modelVersion` replayed after `fromMs`, oldest first, ready for the scorer. */
export async function readReplayedForecasts(
  db: Database,
  fromMs: number,
  modelVersion: string,
): Promise<ScorableForecast[]> {
  const rows = await db
    .select()
    .from(replayedForecasts)
    .where(
      and(
        gt(replayedForecasts.originHour, new Date(fromMs)),
        eq(replayedForecasts.modelVersion, modelVersion),
      ),
    )
    .orderBy(asc(replayedForecasts.originHour));
  return rows.map((row) => ({
    originHour: row.originHour.getTime(),
    current: row.currentAverageGwei,
    points: row.points,
    decision: row.decision,
    outcome: row.outcome,
  }));
}

/** What a back-test summary was made of: the model whose replays it scores, and the stored hours then. */
export interface SummaryBasis {
  modelVersion: string;
  historyHours: number;
}

/**
 * Stores the back-test summary of each window for `hourMs` made by `basis`, unless one of the same
 * hour, model, window and stored hours is stored already (by an overlapping run). Returns the
 * windows this call wrote.
 */
export async function insertBacktestSummaries(
  db: Database,
  hourMs: number,
  basis: SummaryBasis,
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
        modelVersion: basis.modelVersion,
        historyHours: basis.historyHours,
        computedAt: new Date(computedAt),
        figures: windowFigures,
      })),
    )
    .onConflictDoNothing()
    .returning({ window: backtestSummaries.window });
  return written.map((row) => row.window as AccuracyWindow);
}

/**
 * The newest back-test summary of `window` by `modelVersion` made after `fromMs` (of the newest hour,
 * the one made from the most stored hours), or null when none is stored.
 */
export async function readBacktestSummary(
  db: Database,
  window: AccuracyWindow,
  fromMs: number,
  modelVersion: string,
): Promise<{ hour: number; figures: AccuracyFigures } | null> {
  const [row] = await db
    .select({ hour: backtestSummaries.hour, figures: backtestSummaries.figures })
    .from(backtestSummaries)
    .where(
      and(
        eq(backtestSummaries.window, window),
        eq(backtestSummaries.modelVersion, modelVersion),
        gt(backtestSummaries.hour, new Date(fromMs)),
      ),
    )
    .orderBy(desc(backtestSummaries.hour), desc(backtestSummaries.historyHours))
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
