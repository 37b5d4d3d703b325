import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from '../../drizzle/schema';
import { redactUrls } from '../log';

/** A drizzle database over any of the three engines (Neon, node-postgres, PGlite); one set of queries serves all. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * Runs `fn` with a database handle and releases it afterwards. Request-scoped clients (Neon in the
 * Worker) are opened and closed around each call; the Node host's embedded database stays open.
 */
export type WithDb = <T>(fn: (db: Database) => Promise<T>) => Promise<T>;

/**
 * Describes a database failure in one line for logs and tool output: drizzle wraps driver errors
 * ("Failed query: ..."), so the underlying cause (refused, timeout, missing database) is appended,
 * and any URL is reduced to its host so a password in a connection string never leaks.
 */
export function describeDbError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const message = current instanceof Error ? current.message.split('\n')[0] : String(current);
    if (message && !parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return redactUrls(parts.join(': ') || 'unknown database error');
}
