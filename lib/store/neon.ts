import { Pool } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import * as schema from '../../drizzle/schema';
import { settleWithin } from '../async';
import { STORE_QUERY_TIMEOUT_MS, type WithDb } from './database';

/** How long opening a connection may take before the store counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Returns the Worker's WithDb over Neon serverless Postgres. Each call opens a pool, runs `fn` and
 * ends the pool: workerd forbids reusing a socket across requests, so nothing outlives the call.
 */
export function createNeonWithDb(url: string, connectTimeoutMs = CONNECT_TIMEOUT_MS): WithDb {
  return async (fn) => {
    const pool = new Pool({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: STORE_QUERY_TIMEOUT_MS,
    });
    // A dropped idle connection is reported on the pool; without a listener it would crash the isolate.
    pool.on('error', () => {});
    try {
      return await fn(drizzle({ client: pool, schema }));
    } finally {
      // A connection stuck in a query that timed out never comes back, and ending the pool would
      // wait for it: the call does not.
      await settleWithin(pool.end(), POOL_END_WAIT_MS).catch(() => {});
    }
  };
}

/** How long a call waits for its pool to end. */
const POOL_END_WAIT_MS = 1_000;
