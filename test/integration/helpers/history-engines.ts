import { type SQL, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Database } from '../../../lib/store/database';
import { type DatabaseEngine, openDatabase } from '../../../lib/store/engines';
import { readHourlyHistory } from '../../../lib/store/history-queries';
import { type NeonRelay, startNeonRelay, useNeonRelay } from './neon-ws-relay';
import { type PostgresServer, startPostgres } from './postgres-server';

/** How long a connection to the lab's healthy servers may take (production allows 5 s). */
const HEALTHY_CONNECT_TIMEOUT_MS = 30_000;

/** The three engines every history query is tested on. */
export const ENGINE_KINDS = ['pglite', 'pg', 'neon'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

/** One PostgreSQL 15 server and Neon relay for a test file, and the engines opened on them. */
export interface EngineLab {
  server: PostgresServer;
  relay: NeonRelay;
  /** Opens and migrates an engine of `kind` on its own fresh database. */
  open(kind: EngineKind): Promise<DatabaseEngine>;
  close(): Promise<void>;
}

/**
 * Starts a real PostgreSQL 15 server and a Neon WebSocket relay for one test file. Each `open`
 * gets its own database (or in-memory PGlite), migrated with the project's migrations.
 */
export async function startEngineLab(): Promise<EngineLab> {
  const server = await startPostgres();
  const relay = await startNeonRelay();
  useNeonRelay(relay);
  const opened: DatabaseEngine[] = [];
  let databases = 0;
  return {
    server,
    relay,
    async open(kind) {
      // An ample connect budget: these servers are healthy, and a loaded machine may take seconds to
      // connect hundreds of overlapping writers through the relay (unreachable stores are tested apart).
      const spec =
        kind === 'pglite'
          ? { kind }
          : {
              kind,
              url: await server.createDatabase(`${kind}_${++databases}`),
              connectTimeoutMs: HEALTHY_CONNECT_TIMEOUT_MS,
            };
      const engine = await openDatabase(spec);
      await engine.migrate();
      opened.push(engine);
      return engine;
    },
    async close() {
      await Promise.allSettled(opened.map((engine) => engine.close()));
      await relay.close();
      await server.stop();
    },
  };
}

/** Empties the history tables (snapshots, stored and replayed forecasts, back-test summaries) between tests. */
export async function clearHistory(db: Database): Promise<void> {
  await db.execute(
    sql`TRUNCATE mainnet_snapshots, l2_snapshots, hourly_forecasts, replayed_forecasts, backtest_summaries`,
  );
}

/** Runs raw SQL and returns its rows, whatever the driver's result shape. */
export async function queryRows(db: Database, query: SQL): Promise<Array<Record<string, unknown>>> {
  const result: unknown = await db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<
    Record<string, unknown>
  >;
}

/** Counts rows of a history table. */
export async function countRows(
  db: Database,
  table:
    | 'mainnet_snapshots'
    | 'l2_snapshots'
    | 'hourly_forecasts'
    | 'replayed_forecasts'
    | 'backtest_summaries',
): Promise<number> {
  const rows = await queryRows(db, sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)}`);
  return Number(rows[0]?.n);
}

/** Every stored hour's count and means equal those of a direct aggregate over the snapshots. */
export async function expectSumsMatchSnapshots(engine: Pick<DatabaseEngine, 'withDb'>): Promise<void> {
  const direct = await engine.withDb((db) =>
    queryRows(
      db,
      sql`SELECT floor(date_part('epoch', slot_start) / 3600) * 3600 AS hour, count(*)::int AS n,
        avg(low_gwei) AS low, avg(average_gwei) AS average, avg(high_gwei) AS high
      FROM mainnet_snapshots GROUP BY 1 ORDER BY 1`,
    ),
  );
  const { hours, snapshotCount } = await engine.withDb((db) => readHourlyHistory(db, 0));
  expect(hours.map((h) => h.time)).toEqual(direct.map((row) => Number(row.hour) * 1000));
  expect(snapshotCount).toBe(direct.reduce((sum, row) => sum + Number(row.n), 0));
  hours.forEach((hour, i) => {
    const row = direct[i] ?? {};
    expect(hour.low).toBeCloseTo(Number(row.low), 9);
    expect(hour.average).toBeCloseTo(Number(row.average), 9);
    expect(hour.high).toBeCloseTo(Number(row.high), 9);
  });
}
