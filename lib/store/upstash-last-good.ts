import { Redis } from '@upstash/redis/cloudflare';
import type { Logger } from '../log';
import type { LastGood, LastGoodStore } from './last-good';

/** Keys are namespaced so the service can share a Redis database with other applications. */
const KEY_PREFIX = 'gas-fee-api:last-good:';
/** Redis forgets entries after a day; values older than 5 minutes are never served anyway. */
const EXPIRE_SECONDS = 86_400;

export interface UpstashLastGoodOptions {
  url: string;
  token: string;
  /** Budget of one Redis call; an unreachable Redis costs at most this much of a request. */
  timeoutMs: number;
  log: Logger;
}

/**
 * Creates a last-known-good store over Upstash Redis (REST), shared by every instance of the app. It never
 * throws: a failed, slow or garbled Redis reads as "no value" and a failed write is logged and dropped,
 * so the store can never fail a request. The token never reaches a log line.
 */
export function createUpstashLastGoodStore(options: UpstashLastGoodOptions): LastGoodStore {
  // A client per call: it holds no connection, and workerd forbids reusing I/O objects across requests.
  const client = () =>
    new Redis({
      url: options.url,
      token: options.token,
      // One attempt: retrying with back-off would spend the request's time budget on a sick Redis.
      retry: false,
      enableTelemetry: false,
      readYourWrites: false,
      automaticDeserialization: false,
      // A signal factory makes the client throw on timeout instead of returning a fake result.
      signal: () => AbortSignal.timeout(options.timeoutMs),
    });
  const fail = (op: string, key: string, error: unknown) =>
    options.log.warn('last-good store failed', { op, key, error: describe(error) });

  return {
    async get<T>(key: string): Promise<LastGood<T> | null> {
      try {
        const raw = await client().get<string>(KEY_PREFIX + key);
        if (raw === null || raw === undefined) return null;
        const entry = decodeEntry(raw);
        if (!entry) fail('get', key, new Error('unreadable value'));
        return entry as LastGood<T> | null;
      } catch (error) {
        fail('get', key, error);
        return null;
      }
    },
    async set<T>(key: string, value: T, storedAt: number): Promise<void> {
      try {
        await client().set(KEY_PREFIX + key, JSON.stringify({ value, storedAt }), { ex: EXPIRE_SECONDS });
      } catch (error) {
        fail('set', key, error);
      }
    },
  };
}

/** Parses a stored entry; anything that is not `{value, storedAt}` is treated as absent. */
function decodeEntry(raw: unknown): LastGood<unknown> | null {
  if (typeof raw !== 'string') return null;
  try {
    const parsed = JSON.parse(raw) as { value?: unknown; storedAt?: unknown } | null;
    if (!parsed || typeof parsed !== 'object' || !('value' in parsed)) return null;
    const { storedAt } = parsed;
    if (typeof storedAt !== 'number' || !Number.isFinite(storedAt)) return null;
    return { value: parsed.value, storedAt };
  } catch {
    return null;
  }
}

/** A short error description: the client echoes the command (our value) in messages, never the token. */
function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 200);
}
