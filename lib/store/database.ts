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
 * How long a request waits on one unit of work on the store. A networked store that stops answering
 * (a frozen server, a connection dropped without a reset) would otherwise hold every request that
 * shares the read for ever; past this the read counts as failed (503 for history, no rank, the
 * built-in forecast profile). Queries take milliseconds and a new connection (a Neon compute waking
 * up included) at most its 5 s connect timeout, so this cuts only a store that is not answering.
 */
export const STORE_READ_DEADLINE_MS = 8_000;

/**
 * The per-query limit of the networked engines' pools (node-postgres, Neon): a query with no answer
 * by then fails, the scheduled jobs' included. The Node host's pool is then replaced (a stuck
 * connection never serves another unit of work); the Worker's lasts one call anyway.
 */
export const STORE_QUERY_TIMEOUT_MS = 10_000;

/** True when a store error (or one it wraps) is a query with no answer within STORE_QUERY_TIMEOUT_MS. */
export function isQueryTimeout(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (current.message === 'Query read timeout') return true;
    current = current.cause;
  }
  return false;
}

/**
 * One link's first line. Neon's driver rejects a refused connection with a WebSocket ErrorEvent whose
 * message (and error's) is empty: that is said as a failed connection, not "[object ErrorEvent]".
 */
function messageOf(value: unknown): string {
  if (value instanceof Error) return value.message.split('\n')[0] ?? '';
  if (typeof value !== 'object' || value === null) return String(value);
  const { message, error, code } = value as { message?: unknown; error?: unknown; code?: unknown };
  const text = typeof message === 'string' && message ? message : error instanceof Error ? error.message : '';
  if (text) return text.split('\n')[0] ?? '';
  if (typeof code === 'string' && code) return `error ${code}`;
  const name = value.constructor?.name ?? 'Object';
  return name.endsWith('Event') ? `the connection failed (${name})` : `an error without a message (${name})`;
}

/**
 * Describes a database failure in one line for logs and tool output: drizzle wraps driver errors
 * ("Failed query: ..."), so the underlying cause (refused, timeout, missing database) is appended,
 * and any URL is reduced to its host so a password in a connection string never leaks.
 */
export function describeDbError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const message = messageOf(current);
    if (message && !parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return redactUrls(parts.join(': ') || 'unknown database error');
}
