import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import type { AccuracyFigures, ForecastOutcome } from '../lib/forecast/accuracy';

/**
 * One mainnet reading per 90-second slot (SPEC decision 15). The slot start is the primary key, so
 * a slot is written once, and its b-tree is the index every history range query walks.
 */
export const mainnetSnapshots = pgTable('mainnet_snapshots', {
  slotStart: timestamp('slot_start', { withTimezone: true, mode: 'date' }).primaryKey(),
  readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
  // Imported rows (CSV) carry no block.
  blockNumber: bigint('block_number', { mode: 'number' }),
  baseFeeGwei: doublePrecision('base_fee_gwei'),
  lowGwei: doublePrecision('low_gwei').notNull(),
  averageGwei: doublePrecision('average_gwei').notNull(),
  highGwei: doublePrecision('high_gwei').notNull(),
  // Provider label (host name), `etherscan`, `backfill` or `import`; never a URL.
  source: text('source').notNull(),
});

/**
 * Each hour's mainnet snapshots summed up, kept by triggers on `mainnet_snapshots` (migration 0003)
 * whoever writes or deletes there: the snapshot job, backfill, import, pruning. The forecaster's
 * 35 days of hourly means are then a read of ~840 rows instead of an aggregate over ~33,600. Sums
 * and a count, not means, so that writers of the same hour in overlapping transactions each add
 * their own rows under the row's lock and none is lost.
 */
export const mainnetHourly = pgTable('mainnet_hourly', {
  // Start of the hour (UTC): floor(epoch seconds / 3600) * 3600.
  hour: timestamp('hour', { withTimezone: true, mode: 'date' }).primaryKey(),
  snapshots: integer('snapshots').notNull(),
  lowSum: doublePrecision('low_sum').notNull(),
  averageSum: doublePrecision('average_sum').notNull(),
  highSum: doublePrecision('high_sum').notNull(),
});

/** One reading per L2 network per 90-second slot; (network, slot start) is the key and the range index. */
export const l2Snapshots = pgTable(
  'l2_snapshots',
  {
    network: text('network').notNull(),
    slotStart: timestamp('slot_start', { withTimezone: true, mode: 'date' }).notNull(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
    gasPriceGwei: doublePrecision('gas_price_gwei').notNull(),
    executionGasCostUsd: doublePrecision('execution_gas_cost_usd').notNull(),
    // Null where the network has no separate L1 fee (Arbitrum, Polygon).
    l1DataFeeUsd: doublePrecision('l1_data_fee_usd'),
    nativeUsd: doublePrecision('native_usd').notNull(),
  },
  // Retention pruning deletes by slot start across all networks.
  (table) => [
    primaryKey({ columns: [table.network, table.slotStart] }),
    index('l2_snapshots_slot_idx').on(table.slotStart),
  ],
);

/** One stored forecast point: the average tier (gwei) served for an hour and its stated confidence. */
export interface StoredForecastPoint {
  timestamp: string;
  low: number;
  average: number;
  high: number;
  confidence: number;
}

/** The decision served with a stored forecast (SPEC 2.6), as the service served it. */
export interface StoredDecision {
  recommendation: 'wait' | 'send_now';
  expectedSavingsPct: number;
  expectedGas: number;
  nextBestAt: string;
  confidence: number;
}

/**
 * The 24-hour forecast the service served in one hour (SPEC extension 18), kept to be scored once its
 * hours have happened. The origin hour is the primary key, so any number of scheduler runs store one
 * forecast per hour; `scored_at` and `outcome` are written once, by the first run that finds it due.
 */
export const hourlyForecasts = pgTable(
  'hourly_forecasts',
  {
    // Start of the hour the forecast was served in; its points are the 24 hours after it.
    originHour: timestamp('origin_hour', { withTimezone: true, mode: 'date' }).primaryKey(),
    issuedAt: timestamp('issued_at', { withTimezone: true, mode: 'date' }).notNull(),
    // The live reading the forecast started from: the persistence baseline.
    currentAverageGwei: doublePrecision('current_average_gwei').notNull(),
    currentReadAt: timestamp('current_read_at', { withTimezone: true, mode: 'date' }).notNull(),
    currentSource: text('current_source').notNull(),
    points: jsonb('points').$type<StoredForecastPoint[]>().notNull(),
    decision: jsonb('decision').$type<StoredDecision>().notNull(),
    usingFallbackData: boolean('using_fallback_data').notNull(),
    dataPoints: integer('data_points').notNull(),
    scoredAt: timestamp('scored_at', { withTimezone: true, mode: 'date' }),
    outcome: jsonb('outcome').$type<ForecastOutcome>(),
  },
  // The scheduler looks for unscored forecasts on every tick.
  (table) => [
    index('hourly_forecasts_unscored_idx').on(table.originHour).where(sql`${table.scoredAt} IS NULL`),
  ],
);

/** A replayed point: the average tier (gwei) the forecast would have said for an hour, and its confidence. */
export interface ReplayedForecastPoint {
  average: number;
  confidence: number;
}

/** The decision a replayed forecast would have served: what the scorer needs of it. */
export interface ReplayedDecision {
  recommendation: 'wait' | 'send_now';
  nextBestAt: string;
}

/**
 * The model version of rows written before versions were stored (migration 0004), or by a process
 * still running that code during a deployment: no model's, so never served and always replayed again.
 */
const UNVERSIONED = 'unversioned';

/**
 * The forecast the service would have served in a past hour, replayed by the scheduled job from the
 * stored history before that hour (the back-test of stored history, SPEC extension 18), with what
 * happened after it. Each hour is replayed once per model version, the first run after its 24 hours
 * are over (or after the model changed), so a run replays only the hours not yet stored by the
 * current model instead of the whole window; a replay by another model is replaced.
 */
export const replayedForecasts = pgTable('replayed_forecasts', {
  originHour: timestamp('origin_hour', { withTimezone: true, mode: 'date' }).primaryKey(),
  replayedAt: timestamp('replayed_at', { withTimezone: true, mode: 'date' }).notNull(),
  // The model that replayed it (lib/forecast/model-version.ts).
  modelVersion: text('model_version').notNull().default(UNVERSIONED),
  // The hour's own mean, the reading the replayed forecast starts from.
  currentAverageGwei: doublePrecision('current_average_gwei').notNull(),
  points: jsonb('points').$type<ReplayedForecastPoint[]>().notNull(),
  decision: jsonb('decision').$type<ReplayedDecision>().notNull(),
  outcome: jsonb('outcome').$type<ForecastOutcome>().notNull(),
});

/**
 * The scores of the replayed forecasts of a window, made by the scheduled job once per hour and
 * model version, and again when more hours of history are stored since (an import, a backfill), so
 * that /api/forecast-accuracy answers a young deployment with one read. The key holds all four: any
 * number of runs store one summary per hour, model, window and count of stored hours; the newest
 * hour's summary from the most stored hours is the one served.
 */
export const backtestSummaries = pgTable(
  'backtest_summaries',
  {
    window: text('accuracy_window').notNull(),
    // The hour the summary was made for: it scores the replayed forecasts made in the window before it.
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    // The model whose replays it scores (lib/forecast/model-version.ts).
    modelVersion: text('model_version').notNull().default(UNVERSIONED),
    // The hours of history stored when it was made, counted as cron/backtest-job.ts counts them.
    historyHours: integer('history_hours').notNull().default(0),
    computedAt: timestamp('computed_at', { withTimezone: true, mode: 'date' }).notNull(),
    figures: jsonb('figures').$type<AccuracyFigures>().notNull(),
  },
  (table) => [
    primaryKey({
      name: 'backtest_summaries_pk',
      columns: [table.hour, table.modelVersion, table.window, table.historyHours],
    }),
  ],
);
