/**
 * Where the shared read-through entries live (lib/store/shared-read.ts): Upstash Redis, shared by
 * every Worker isolate and Node process, or an in-process map when no Redis is configured. An entry
 * is the newest reading of one data kind with its read time, so it is also the last-known-good value.
 * Every method throws when the store cannot be reached; the read-through layer catches and falls back.
 */
export interface LastGoodStore {
  /** `redis`: one store for the whole fleet; `memory`: this process only. */
  readonly scope: 'redis' | 'memory';
  /** The stored document under `key` (parsed JSON, or the raw text when it is not JSON), or null. */
  get(key: string): Promise<unknown>;
  /**
   * Stores `value` under `key` for `keepMs` and, in the same round trip, releases the refresh lease
   * `releaseLease` when given.
   */
  set(key: string, value: unknown, keepMs: number, releaseLease?: string): Promise<void>;
  /**
   * Takes the lease `key` for `ms` (SET NX PX) and reads `entryKey` right after it, in one round trip:
   * an entry written by a holder that let go of the lease just before is seen, so it is not read twice.
   */
  lease(key: string, ms: number, entryKey: string): Promise<{ taken: boolean; entry: unknown }>;
  /** Gives a lease back (DEL). */
  release(key: string): Promise<void>;
}

/** Creates the in-process store used when no Redis is configured; entries and leases expire like Redis keys. */
export function createMemoryLastGoodStore(now: () => number = Date.now): LastGoodStore {
  const values = new Map<string, { value: unknown; expiresAt: number }>();
  const read = (key: string) => {
    const hit = values.get(key);
    if (hit && hit.expiresAt <= now()) values.delete(key);
    return hit && hit.expiresAt > now() ? hit.value : null;
  };
  const lease = (key: string, ms: number) => {
    if (read(key) !== null) return false;
    values.set(key, { value: '1', expiresAt: now() + ms });
    return true;
  };
  return {
    scope: 'memory',
    async get(key) {
      return read(key);
    },
    async set(key, value, keepMs, releaseLease) {
      // A copy, as Redis would hold: later changes to the caller's object must not show.
      values.set(key, { value: structuredClone(value), expiresAt: now() + keepMs });
      if (releaseLease) values.delete(releaseLease);
    },
    async lease(key, ms, entryKey) {
      return { taken: lease(key, ms), entry: read(entryKey) };
    },
    async release(key) {
      values.delete(key);
    },
  };
}
