import { and, count, gte, isNotNull, min, sql } from 'drizzle-orm';
import { mainnetSnapshots } from '../../drizzle/schema';
import { computePercentileRank } from '../forecast/percentile-rank';
import type { Database } from './database';

const DAY_MS = 86_400_000;
/** The look-back of the ranking. */
export const RANK_WINDOW_MS = 7 * DAY_MS;
/** Less stored history than this (oldest stored base fee younger than a day) ranks as null. */
export const MIN_RANK_SPAN_MS = DAY_MS;

/**
 * Ranks `baseFeeGwei` (0 to 100) among the base fees stored in the 7 days before `now`, counted in
 * SQL (one row back, whatever the table size: the primary key's range scan). Null when the stored
 * base fees span less than a day. Rows without a base fee (CSV imports) do not count.
 */
export async function rankBaseFeeAmongLastWeek(
  db: Database,
  baseFeeGwei: number,
  now: number,
): Promise<number | null> {
  const [row] = await db
    .select({
      below: sql`count(*) filter (where ${mainnetSnapshots.baseFeeGwei} < ${baseFeeGwei})`.mapWith(Number),
      equal: sql`count(*) filter (where ${mainnetSnapshots.baseFeeGwei} = ${baseFeeGwei})`.mapWith(Number),
      total: count().mapWith(Number),
      oldest: min(mainnetSnapshots.slotStart),
    })
    .from(mainnetSnapshots)
    .where(
      and(
        gte(mainnetSnapshots.slotStart, new Date(now - RANK_WINDOW_MS)),
        isNotNull(mainnetSnapshots.baseFeeGwei),
      ),
    );
  if (!row?.oldest || now - new Date(row.oldest).getTime() < MIN_RANK_SPAN_MS) return null;
  return computePercentileRank(row);
}
