import { and, asc, eq, gt, gte, lte, sql } from 'drizzle-orm';
import { l2Snapshots, mainnetHourly, mainnetSnapshots } from '../../drizzle/schema';
import { roundGweiToWei } from '../units';
import type { Database } from './database';

const HOUR_MS = 3_600_000;

/** One bucket of mainnet history: `time` is the bucket start in epoch ms, `gasPrice` the average tier's mean. */
export interface HistoryBucket {
  time: number;
  gasPrice: number;
}

/** One stored L2 sample, as the l2-gas-history endpoint serves it. */
export interface L2Sample {
  time: number;
  readAt: number;
  gasPriceGwei: number;
  executionGasCostUsd: number;
}

/** One hour of mainnet history for the forecaster: tier means of the snapshots in that hour. */
export interface HourlyAggregate {
  time: number;
  low: number;
  average: number;
  high: number;
}

/**
 * SQL for the aligned bucket start (epoch seconds) of a slot: floor(epoch / size) * size. The size
 * is inlined, not bound, so the SELECT and GROUP BY expressions are textually identical (Postgres
 * matches them by text, and two separate parameters would not match).
 */
function bucketExpression(bucketSeconds: number) {
  if (!Number.isInteger(bucketSeconds) || bucketSeconds <= 0) {
    throw new RangeError(`bucket size must be a positive whole number of seconds, not ${bucketSeconds}`);
  }
  const size = sql.raw(String(bucketSeconds));
  // date_part is float8 (extract is numeric, several times slower per row); epoch seconds are exact in it.
  return sql`floor(date_part('epoch', ${mainnetSnapshots.slotStart}) / ${size}) * ${size}`;
}

/**
 * The bucketed-history query (not yet run), exposed so the benchmark can EXPLAIN exactly what the
 * endpoint runs. The range predicate walks the slot_start primary key, so the cost follows the rows
 * in range, not the size of the table.
 */
export function bucketedHistoryQuery(
  db: Database,
  window: { fromMs: number; toMs: number; bucketSeconds: number },
) {
  const bucket = bucketExpression(window.bucketSeconds);
  return db
    .select({
      bucket: bucket.mapWith(Number),
      gasPrice: sql`avg(${mainnetSnapshots.averageGwei})`.mapWith(Number),
      latestReadAt: sql`max(${mainnetSnapshots.readAt})`.mapWith(mainnetSnapshots.readAt),
    })
    .from(mainnetSnapshots)
    .where(
      and(
        gt(mainnetSnapshots.slotStart, new Date(window.fromMs)),
        lte(mainnetSnapshots.slotStart, new Date(window.toMs)),
      ),
    )
    .groupBy(bucket)
    .orderBy(bucket);
}

/** Averages the stored average tier per aligned bucket over fromMs < slot start <= toMs, oldest first. */
export async function readBucketedHistory(
  db: Database,
  window: { fromMs: number; toMs: number; bucketSeconds: number },
): Promise<{ buckets: HistoryBucket[]; latestReadAt: number | null }> {
  const rows = await bucketedHistoryQuery(db, window);
  let latestReadAt: number | null = null;
  for (const row of rows) latestReadAt = Math.max(latestReadAt ?? 0, row.latestReadAt.getTime());
  // avg() in double precision leaves noise past the 9th decimal; a bucket is served to the wei.
  const buckets = rows.map((row) => ({ time: row.bucket * 1000, gasPrice: roundGweiToWei(row.gasPrice) }));
  return { buckets, latestReadAt };
}

/** Reads the raw samples of one L2 network with fromMs < slot start <= toMs, oldest first. */
export async function readL2Samples(
  db: Database,
  network: string,
  window: { fromMs: number; toMs: number },
): Promise<L2Sample[]> {
  const rows = await db
    .select({
      slotStart: l2Snapshots.slotStart,
      readAt: l2Snapshots.readAt,
      gasPriceGwei: l2Snapshots.gasPriceGwei,
      executionGasCostUsd: l2Snapshots.executionGasCostUsd,
    })
    .from(l2Snapshots)
    .where(
      and(
        eq(l2Snapshots.network, network),
        gt(l2Snapshots.slotStart, new Date(window.fromMs)),
        lte(l2Snapshots.slotStart, new Date(window.toMs)),
      ),
    )
    .orderBy(asc(l2Snapshots.slotStart));
  return rows.map((row) => ({
    time: row.slotStart.getTime(),
    readAt: row.readAt.getTime(),
    gasPriceGwei: row.gasPriceGwei,
    executionGasCostUsd: row.executionGasCostUsd,
  }));
}

/** The slot of the oldest stored mainnet snapshot (epoch ms), or null for an empty store: one key read. */
export async function readFirstSnapshotAt(db: Database): Promise<number | null> {
  const [row] = await db
    .select({ slotStart: mainnetSnapshots.slotStart })
    .from(mainnetSnapshots)
    .orderBy(asc(mainnetSnapshots.slotStart))
    .limit(1);
  return row ? row.slotStart.getTime() : null;
}

/**
 * Reads hourly tier means of the mainnet snapshots of every hour from the one holding `sinceMs` on
 * (that hour whole), oldest first, and how many snapshots they summarise: the forecaster's input and
 * its `dataPoints`. The means come from the hourly sums the store keeps beside the snapshots
 * (`mainnet_hourly`), so 35 days are ~840 rows read by their key.
 */
export async function readHourlyHistory(
  db: Database,
  sinceMs: number,
): Promise<{ hours: HourlyAggregate[]; snapshotCount: number }> {
  const rows = await db
    .select()
    .from(mainnetHourly)
    .where(gte(mainnetHourly.hour, new Date(Math.floor(sinceMs / HOUR_MS) * HOUR_MS)))
    .orderBy(asc(mainnetHourly.hour));
  return {
    hours: rows.map((row) => ({
      time: row.hour.getTime(),
      low: row.lowSum / row.snapshots,
      average: row.averageSum / row.snapshots,
      high: row.highSum / row.snapshots,
    })),
    snapshotCount: rows.reduce((sum, row) => sum + row.snapshots, 0),
  };
}
