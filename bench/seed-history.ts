// Fills a PGlite data directory with what a deployment keeps: 35 days of mainnet and 8 days of L2
// snapshots (the retention of lib/store/history-writes.ts), one per 90-second slot, and the back-test
// of that history as the scheduled job keeps it once caught up (cron/backtest-job.ts), so the server
// under load is in its steady state: the catch-up after an import (some seconds of CPU over the first
// ticks) is measured by `npm run bench -- forecast-accuracy`, not here.
import { sql } from 'drizzle-orm';
import { runBacktestJob } from '../cron/backtest-job';
import { createLogger } from '../lib/log';
import { openDatabase } from '../lib/store/engines';
import { HISTORY_RETENTION_DAYS } from '../lib/store/history-writes';
import { SLOT_MS, slotStartOf } from '../lib/store/slots';

const DAY_MS = 86_400_000;

/** Seeds `dataDir` (migrating it first) and returns the row counts; the directory is closed after. */
export async function seedHistory(dataDir: string, now: number): Promise<{ mainnet: number; l2: number }> {
  const engine = await openDatabase({ kind: 'pglite', dataDir });
  try {
    await engine.migrate();
    const newest = slotStartOf(now) - SLOT_MS;
    const from = (days: number) => (newest - days * DAY_MS + SLOT_MS) / 1000;
    await engine.withDb(async (db) => {
      await db.execute(sql`INSERT INTO mainnet_snapshots
        SELECT t, t + interval '2 seconds', 20000000 + (extract(epoch from t)::bigint / 90), 10,
               8 + 4 * random(), 10 + 6 * random(), 14 + 9 * random(), 'bench'
        FROM generate_series(to_timestamp(${from(HISTORY_RETENTION_DAYS.mainnet)}), to_timestamp(${newest / 1000}),
                             interval '90 seconds') AS t
        ON CONFLICT DO NOTHING`);
      await db.execute(sql`INSERT INTO l2_snapshots
        SELECT n, t, t + interval '2 seconds', 0.01 + 0.02 * random(), 0.002 + 0.001 * random(),
               CASE WHEN n IN ('optimism', 'base') THEN 0.0005 ELSE NULL END, 3000
        FROM unnest(ARRAY['arbitrum', 'optimism', 'base', 'polygon']) AS n,
             generate_series(to_timestamp(${from(HISTORY_RETENTION_DAYS.l2)}), to_timestamp(${newest / 1000}),
                             interval '90 seconds') AS t
        ON CONFLICT DO NOTHING`);
    });
    const quiet = { withDb: engine.withDb, now: () => now, log: createLogger(() => {}) };
    for (;;) {
      const run = await runBacktestJob(quiet, now);
      if (run.summary !== 'pending' || run.replayed === 0) break;
    }
    const count = async (table: string) =>
      engine.withDb(async (db) => {
        const result = await db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table}`));
        return Number((result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0);
      });
    return { mainnet: await count('mainnet_snapshots'), l2: await count('l2_snapshots') };
  } finally {
    await engine.close();
  }
}
