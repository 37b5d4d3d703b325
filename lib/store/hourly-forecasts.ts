import { and, asc, eq, gt, isNotNull, isNull, lt, lte, or } from 'drizzle-orm';
import { hourlyForecasts, type StoredDecision, type StoredForecastPoint } from '../../drizzle/schema';
import type { ForecastOutcome, ScorableForecast } from '../forecast/accuracy';
import type { Database } from './database';
import { HISTORY_RETENTION_DAYS } from './history-writes';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Stored forecasts are kept as long as mainnet snapshots: the 30-day window plus the scoring delay. */
export const FORECAST_RETENTION_DAYS = HISTORY_RETENTION_DAYS.mainnet;

/** One forecast to store; times in epoch ms, gas in gwei. */
export interface HourlyForecastRow {
  /** Start of the hour the forecast was served in. */
  originHour: number;
  issuedAt: number;
  currentAverageGwei: number;
  currentReadAt: number;
  /** Label of the upstream behind the reading; never a URL. */
  currentSource: string;
  points: StoredForecastPoint[];
  decision: StoredDecision;
  usingFallbackData: boolean;
  dataPoints: number;
}

/**
 * Stores a forecast unless its hour already holds one, and tells whether it wrote. The origin hour
 * is the primary key, so overlapping scheduler runs store one forecast per hour.
 */
export async function insertHourlyForecast(db: Database, row: HourlyForecastRow): Promise<boolean> {
  if (row.originHour % HOUR_MS !== 0) throw new RangeError(`${row.originHour} is not the start of an hour`);
  const written = await db
    .insert(hourlyForecasts)
    .values({
      ...row,
      originHour: new Date(row.originHour),
      issuedAt: new Date(row.issuedAt),
      currentReadAt: new Date(row.currentReadAt),
    })
    .onConflictDoNothing()
    .returning({ originHour: hourlyForecasts.originHour });
  return written.length > 0;
}

/**
 * In one query, what a scheduler tick needs: whether the hour `originHour` already holds its
 * forecast, and the unscored forecasts made at or before `dueBy` (their 24 hours have happened).
 */
export async function readForecastWork(
  db: Database,
  originHour: number,
  dueBy: number,
): Promise<{ stored: boolean; due: number[] }> {
  const rows = await db
    .select({ originHour: hourlyForecasts.originHour, scoredAt: hourlyForecasts.scoredAt })
    .from(hourlyForecasts)
    .where(
      or(
        eq(hourlyForecasts.originHour, new Date(originHour)),
        and(isNull(hourlyForecasts.scoredAt), lte(hourlyForecasts.originHour, new Date(dueBy))),
      ),
    )
    .orderBy(asc(hourlyForecasts.originHour));
  const times = rows.map((row) => ({ time: row.originHour.getTime(), scored: row.scoredAt !== null }));
  return {
    stored: times.some((row) => row.time === originHour),
    due: times.filter((row) => row.time <= dueBy && !row.scored).map((row) => row.time),
  };
}

/**
 * Writes what happened after a stored forecast, once: a forecast already scored (by an overlapping
 * run) is left as it is. Tells whether this call wrote.
 */
export async function recordForecastOutcome(
  db: Database,
  originHour: number,
  outcome: ForecastOutcome,
  scoredAt: number,
): Promise<boolean> {
  const written = await db
    .update(hourlyForecasts)
    .set({ outcome, scoredAt: new Date(scoredAt) })
    .where(and(eq(hourlyForecasts.originHour, new Date(originHour)), isNull(hourlyForecasts.scoredAt)))
    .returning({ originHour: hourlyForecasts.originHour });
  return written.length > 0;
}

/**
 * Reads the scored forecasts made after `fromMs`, oldest first, ready for the scorer, and the time
 * the newest was scored (the time of the figures).
 */
export async function readScoredForecasts(
  db: Database,
  fromMs: number,
): Promise<{ forecasts: ScorableForecast[]; latestScoredAt: number | null }> {
  const rows = await db
    .select({
      originHour: hourlyForecasts.originHour,
      current: hourlyForecasts.currentAverageGwei,
      points: hourlyForecasts.points,
      decision: hourlyForecasts.decision,
      outcome: hourlyForecasts.outcome,
      scoredAt: hourlyForecasts.scoredAt,
    })
    .from(hourlyForecasts)
    .where(and(gt(hourlyForecasts.originHour, new Date(fromMs)), isNotNull(hourlyForecasts.scoredAt)))
    .orderBy(asc(hourlyForecasts.originHour));
  let latestScoredAt: number | null = null;
  const forecasts: ScorableForecast[] = [];
  for (const row of rows) {
    if (!row.outcome || !row.scoredAt) continue;
    latestScoredAt = Math.max(latestScoredAt ?? 0, row.scoredAt.getTime());
    forecasts.push({
      originHour: row.originHour.getTime(),
      current: row.current,
      points: row.points,
      decision: row.decision,
      outcome: row.outcome,
    });
  }
  return { forecasts, latestScoredAt };
}

/** Deletes forecasts made before the retention window, counted back from `nowMs`; returns how many went. */
export async function pruneForecasts(
  db: Database,
  nowMs: number,
  retentionDays: number = FORECAST_RETENTION_DAYS,
): Promise<number> {
  const gone = await db
    .delete(hourlyForecasts)
    .where(lt(hourlyForecasts.originHour, new Date(nowMs - retentionDays * DAY_MS)))
    .returning({ originHour: hourlyForecasts.originHour });
  return gone.length;
}
