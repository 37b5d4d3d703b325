import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Pool as NeonPool, type PoolClient as NeonPoolClient } from '@neondatabase/serverless';
import { drizzle as drizzleNeon } from 'drizzle-orm/neon-serverless';
import { migrate as migrateNeon } from 'drizzle-orm/neon-serverless/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import * as schema from '../../drizzle/schema';
import type { Config } from '../config';
import { findUp } from '../find-up';
import { lockDataDir } from './data-dir-lock';
import { isQueryTimeout, STORE_QUERY_TIMEOUT_MS, type WithDb } from './database';
import { CONNECT_TIMEOUT_MS, createNeonWithDb } from './neon';

/**
 * The generated SQL migrations (drizzle-kit), applied in order by drizzle's migrators: the nearest
 * `drizzle/migrations` above this module, which is lib/store/ in the sources and dist-node/ when built.
 */
export const MIGRATIONS_FOLDER = findUp('drizzle/migrations', dirname(fileURLToPath(import.meta.url)));

/** Which engine to open: Neon over WebSocket, node-postgres over TCP, or embedded PGlite. */
export type EngineSpec =
  | { kind: 'neon'; url: string; connectTimeoutMs?: number }
  | { kind: 'pg'; url: string; connectTimeoutMs?: number; queryTimeoutMs?: number }
  | { kind: 'pglite'; dataDir?: string };

/** An open history database: `withDb` for work, `migrate` to bring the schema up to date, `close` at shutdown. */
export interface DatabaseEngine {
  kind: EngineSpec['kind'];
  withDb: WithDb;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Chooses the Node host's engine (issue 6): node-postgres when DATABASE_URL is set, else embedded
 * PGlite under DATA_DIR.
 */
export function nodeEngineSpec(config: Pick<Config, 'databaseUrl' | 'dataDir'>): EngineSpec {
  return config.databaseUrl
    ? { kind: 'pg', url: config.databaseUrl }
    : { kind: 'pglite', dataDir: config.dataDir };
}

/** Opens one of the three engines; every one runs the same drizzle queries and the same migrations. */
export async function openDatabase(spec: EngineSpec): Promise<DatabaseEngine> {
  if (spec.kind === 'neon') return openNeon(spec.url, spec.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
  if (spec.kind === 'pg') {
    const { url, connectTimeoutMs = CONNECT_TIMEOUT_MS, queryTimeoutMs = STORE_QUERY_TIMEOUT_MS } = spec;
    return openPg(url, connectTimeoutMs, queryTimeoutMs);
  }
  return openPglite(spec.dataDir);
}

/** A fixed advisory-lock key (any number): every process migrating one database takes the same one. */
const MIGRATION_LOCK_KEY = 20_261_127;

/** One connection of a pool: what migrateLocked needs of node-postgres's and Neon's alike. */
interface LockableClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
  release(): void;
}

/**
 * Runs `migrate` on one connection of `pool` holding a session advisory lock, so processes that
 * migrate one database at once (two hosts starting, a host and `db:migrate`) take turns: the later
 * one finds the migrations applied, instead of failing on the objects the first is creating.
 */
async function migrateLocked<C extends LockableClient>(
  pool: { connect(): Promise<C> },
  migrate: (client: C) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

function openNeon(url: string, connectTimeoutMs: number): DatabaseEngine {
  return {
    kind: 'neon',
    withDb: createNeonWithDb(url, connectTimeoutMs),
    async migrate() {
      const pool = new NeonPool({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
      pool.on('error', () => {});
      try {
        await migrateLocked<NeonPoolClient>(pool, (client) =>
          migrateNeon(drizzleNeon({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
        );
      } finally {
        await pool.end().catch(() => {});
      }
    },
    // Neon holds nothing between calls.
    close: async () => {},
  };
}

function openPg(url: string, connectTimeoutMs: number, queryTimeoutMs: number): DatabaseEngine {
  // One pool per process: the Node host keeps its connections for its lifetime.
  const open = () => {
    const pool = new pg.Pool({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: queryTimeoutMs,
    });
    pool.on('error', () => {});
    return { pool, db: drizzlePg({ client: pool, schema }) };
  };
  let current = open();
  return {
    kind: 'pg',
    async withDb(fn) {
      const used = current;
      try {
        return await fn(used.db);
      } catch (error) {
        // A query with no answer may leave its connection stuck, and a transaction hands it back to
        // the pool as if it were fine: that pool is retired (it ends once its connections come
        // back, if they ever do) and new work gets fresh connections.
        if (used === current && isQueryTimeout(error)) {
          current = open();
          used.pool.end().catch(() => {});
        }
        throw error;
      }
    },
    migrate: () =>
      migrateLocked<pg.PoolClient>(current.pool, (client) =>
        migratePg(drizzlePg({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
      ),
    close: () => current.pool.end(),
  };
}

/**
 * PGlite's Postgres settings for a one-process history store. Postgres's defaults size shared memory
 * for a server of 100 connections with 128 MB of buffers, all of it inside the WebAssembly memory of
 * this process; the history tables are a few tens of MB, read once per refresh, and the file system
 * caches them anyway.
 */
export const PGLITE_SETTINGS = [
  'shared_buffers=8MB',
  'wal_buffers=256kB',
  'max_connections=4',
  'work_mem=2MB',
];

/**
 * Opens PGlite in `dataDir` (in memory without one). The directory is locked for this process
 * first (`data-dir-lock.ts`): a second process writing to it would lose one side's rows.
 * @throws DataDirInUseError when another running process has it open.
 */
async function openPglite(dataDir: string | undefined): Promise<DatabaseEngine> {
  let release = async () => {};
  if (dataDir) {
    await mkdir(dataDir, { recursive: true });
    release = await lockDataDir(dataDir);
  }
  try {
    const startParams = [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])];
    const client = new PGlite(dataDir, { startParams });
    await client.waitReady;
    const db = drizzlePglite({ client, schema });
    return {
      kind: 'pglite',
      withDb: (fn) => fn(db),
      migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
      async close() {
        try {
          await client.close();
        } finally {
          await release();
        }
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * Chooses the engine of a command-line tool: DATABASE_URL through Neon's driver for a Neon host
 * (or `--driver neon`), node-postgres otherwise; without DATABASE_URL, the Node host's PGlite.
 */
export function scriptEngineSpec(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  driver?: 'neon' | 'pg',
): EngineSpec {
  if (!config.databaseUrl) return { kind: 'pglite', dataDir: config.dataDir };
  const neonHost = /\.neon\.tech$/i.test(hostOf(config.databaseUrl));
  return { kind: driver ?? (neonHost ? 'neon' : 'pg'), url: config.databaseUrl };
}

/** The host of a connection string, the only part of it a tool may print. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'database';
  }
}
