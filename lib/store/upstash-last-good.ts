import { Redis } from '@upstash/redis/cloudflare';
import { type LastGoodStore, readAtOf } from './last-good';

/** Keys are namespaced so the service can share a Redis database with other applications. */
const KEY_PREFIX = 'gas-fee-api:shared:';

export interface UpstashLastGoodOptions {
  url: string;
  token: string;
  /** Budget of one Redis round trip; an unreachable Redis costs at most this much of a request. */
  timeoutMs: number;
}

/**
 * Creates the shared store over Upstash Redis (REST). Every method throws on a failed, slow or refused
 * call (with a short message that never carries the token), so the read-through layer can tell "no
 * entry" from "no Redis" and fall back to its own upstream read.
 */
export function createUpstashLastGoodStore(options: UpstashLastGoodOptions): LastGoodStore {
  // A client per call: it holds no connection, and workerd forbids reusing I/O objects across requests.
  const client = () =>
    new Redis({
      url: options.url,
      token: options.token,
      // One attempt: retrying with back-off would spend the request's time budget on a sick Redis,
      // and a lease (SET NX) whose answer was lost would come back "taken" by this instance itself.
      // `retry: false` still makes two (@upstash/redis 1.39 loops attempts + 1); no retries makes one.
      retry: { retries: 0 },
      enableTelemetry: false,
      readYourWrites: false,
      automaticDeserialization: false,
      // A signal factory makes the client throw on timeout instead of returning a fake result.
      signal: () => AbortSignal.timeout(options.timeoutMs),
    });
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw new Error(describe(error));
    }
  };

  return {
    scope: 'redis',
    get: (key) => call(async () => decode(await client().get<string>(KEY_PREFIX + key))),
    set: (key, value, keepMs, { releaseLease, plausibleUntil, unreadableAt } = {}) =>
      call(async () => {
        const keys = [KEY_PREFIX + key, `${KEY_PREFIX + key}${READ_AT_SUFFIX}`];
        if (releaseLease) keys.push(KEY_PREFIX + releaseLease.key);
        const args = [
          JSON.stringify(value),
          String(keepMs),
          String(readAtOf(value) ?? -1),
          String(plausibleUntil ?? Number.MAX_SAFE_INTEGER),
          unreadableAt === undefined ? '' : String(unreadableAt),
          releaseLease?.token ?? '',
        ];
        const answer = await client().eval<string[], unknown>(KEEP_NEWER_SET, keys, args);
        if (!Array.isArray(answer)) throw new Error('unexpected answer to the conditional write');
        return answer[0] === 1 || answer[0] === '1'
          ? { stored: true }
          : { stored: false, kept: decode(answer[1]) };
      }),
    lease: (key, ms, entryKey, token) =>
      call(async () => {
        // Two commands, one round trip: the GET runs after the SET NX, so it sees any entry written
        // before a previous holder released the lease.
        const [taken, raw] = await client()
          .pipeline()
          .set(KEY_PREFIX + key, token, { nx: true, px: ms })
          .get<string>(KEY_PREFIX + entryKey)
          .exec();
        return { taken: taken === 'OK', entry: decode(raw) };
      }),
    release: (key, token) =>
      call(async () => {
        await client().eval(RELEASE_OWN_LEASE, [KEY_PREFIX + key], [token]);
      }),
  };
}

/** Beside each entry, its reading time (epoch ms; -1 for none), so a script can compare without parsing JSON. */
const READ_AT_SUFFIX = ':read-at';

/**
 * The conditional write, atomic in Redis: KEYS entry, its read-at key, and the lease to release (if
 * any); ARGV the document, its lifetime (ms), its read-at, the latest plausible read-at, the read-at
 * of an entry the writer found unreadable ('' for none) and the writer's lease token. Releases the
 * lease only while it holds that token (until 2026-11-28 it was deleted whoever held it: a holder
 * whose lease had run out freed the next holder's, and a third instance read as well). Keeps a stored
 * entry with a later, plausible read-at other than that one and answers {0, that entry}; else stores
 * both keys and answers {1}. An entry written before read-at keys existed has none and is replaced,
 * as every entry was.
 */
const KEEP_NEWER_SET = `
if KEYS[3] and redis.call('GET', KEYS[3]) == ARGV[6] then redis.call('DEL', KEYS[3]) end
local stored = redis.call('GET', KEYS[1])
local storedAt = tonumber(redis.call('GET', KEYS[2]) or '')
if stored and storedAt and storedAt > tonumber(ARGV[3]) and storedAt <= tonumber(ARGV[4])
  and storedAt ~= tonumber(ARGV[5]) then
  return {0, stored}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[2])
return {1}
`;

/** Gives back the lease KEYS[1] only while it holds the token ARGV[1] (see KEEP_NEWER_SET). */
const RELEASE_OWN_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** The stored JSON document, or the raw value when it is not JSON (the layer's schema then rejects it). */
function decode(raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A short error description: the client echoes the command (our value) in messages, never the token. */
function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 200);
}
