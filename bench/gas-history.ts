// `npx tsx bench/gas-history.ts`: GET /api/gas-history latency for 30d and 7d over PostgreSQL 15
// (node-postgres, as the Node host with DATABASE_URL), as the store grows from 35 days to one year
// of 90-second snapshots (~350,000 rows), with the query plan of the largest store.
import { sql } from 'drizzle-orm';
import { createApp } from '../functions/app';
import type { CoalescingCache } from '../lib/http/cache';
import type { Database } from '../lib/store/database';
import { openDatabase } from '../lib/store/engines';
import { chooseBucketSeconds, RANGE_SECONDS, rangeWindow } from '../lib/store/history-buckets';
import { bucketedHistoryQuery } from '../lib/store/history-queries';
import { SLOT_MS, slotStartOf } from '../lib/store/slots';
import { createTestDeps } from '../test/helpers/deps';
import { startPostgres } from '../test/integration/helpers/postgres-server';

const DAY_MS = 86_400_000;
const SIZES_DAYS = [35, 90, 180, 365];
const RANGES = ['30d', '7d'] as const;
const WARMUP = 10;
const RUNS = 60;

// Every request must reach the database: the service's short-lived cache is bypassed.
const passThrough: CoalescingCache = {
  get: (_key, _ttl, load) => load(),
  peek: () => undefined,
  delete: () => {},
  version: () => 0,
  settled: () => Promise.resolve(),
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const server = await startPostgres();
  const engine = await openDatabase({ kind: 'pg', url: await server.createDatabase('bench') });
  try {
    await engine.migrate();
    const now = slotStartOf(Date.now()) + 17_000;
    const newest = slotStartOf(now);
    const app = createApp(createTestDeps({}, { withDb: engine.withDb, now: () => now, cache: passThrough }));
    const table: string[][] = [];
    let filledFrom = newest + SLOT_MS;

    for (const days of SIZES_DAYS) {
      // Grow the store backwards in time, as a long-running deployment's table would be.
      const oldest = newest - days * DAY_MS + SLOT_MS;
      await engine.withDb((db) =>
        db.execute(sql`INSERT INTO mainnet_snapshots
          SELECT t, t + interval '2 seconds', 20000000 + (extract(epoch from t)::bigint / 90), 10,
                 8 + 4 * random(), 10 + 6 * random(), 14 + 9 * random(), 'bench'
          FROM generate_series(to_timestamp(${oldest / 1000}), to_timestamp(${(filledFrom - SLOT_MS) / 1000}),
                               interval '90 seconds') AS t`),
      );
      filledFrom = oldest;
      await engine.withDb((db) => db.execute(sql`VACUUM ANALYZE mainnet_snapshots`));
      const total = days * 960;

      for (const range of RANGES) {
        const samples: number[] = [];
        for (let i = 0; i < WARMUP + RUNS; i++) {
          const started = performance.now();
          const res = await app.request(`/api/gas-history?range=${range}`);
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`status ${res.status}`);
          if (i >= WARMUP) samples.push(performance.now() - started);
        }
        samples.sort((a, b) => a - b);
        const inRange = Math.min(total, RANGE_SECONDS[range] / 90);
        table.push([
          `${days} d`,
          String(total),
          range,
          String(inRange),
          percentile(samples, 0.5).toFixed(2),
          percentile(samples, 0.95).toFixed(2),
        ]);
      }
    }

    console.log('\nGET /api/gas-history on PostgreSQL 15 (node-postgres), ms per request\n');
    const header = ['store', 'rows in table', 'range', 'rows in range', 'median ms', 'p95 ms'];
    console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
    for (const row of table) console.log(`| ${row.join(' | ')} |`);

    for (const range of RANGES) {
      const window = { ...rangeWindow(range, now), bucketSeconds: chooseBucketSeconds(RANGE_SECONDS[range]) };
      const query = await engine.withDb(async (db) => bucketedHistoryQuery(db, window).toSQL());
      const plan = await engine.withDb((db) => explain(db, query.sql, query.params));
      const fullScan = plan.some((line) => /Seq Scan on mainnet_snapshots/.test(line));
      console.log(
        `\nplan of range ${range} over ${SIZES_DAYS.at(-1)} days (full scan: ${fullScan ? 'YES' : 'no'}):`,
      );
      for (const line of plan) console.log(`  ${line}`);
    }
  } finally {
    await engine.close();
    await server.stop();
  }
}

/** EXPLAIN ANALYZE of the endpoint's own SQL with its parameters inlined as literals. */
async function explain(db: Database, text: string, params: unknown[]): Promise<string[]> {
  const literal = (value: unknown) => `'${String(value).replace(/'/g, "''")}'`;
  const inlined = text.replace(/\$(\d+)/g, (_m, n: string) => literal(params[Number(n) - 1]));
  const result = (await db.execute(sql.raw(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${inlined}`))) as {
    rows: Array<Record<string, string>>;
  };
  return result.rows.map((row) => Object.values(row)[0] ?? '');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
