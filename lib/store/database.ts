import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from '../../drizzle/schema';

/** A drizzle database over any of the three engines (Neon, node-postgres, PGlite); one set of queries serves all. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * Runs `fn` with a database handle and releases it afterwards. Request-scoped clients (Neon in the
 * Worker) are opened and closed around each call; the Node host's embedded database stays open.
 */
export type WithDb = <T>(fn: (db: Database) => Promise<T>) => Promise<T>;
