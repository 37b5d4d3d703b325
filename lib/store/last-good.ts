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
  /** Takes the lease `key` for `ms` (SET NX PX); true when this caller now holds it. */
  lease(key: string, ms: number): Promise<boolean>;
  /** `get(key)` and `lease(leaseKey, ms)` in one round trip (a pipeline on Redis). */
  getAndLease(key: string, leaseKey: string, ms: number): Promise<[unknown, boolean]>;
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
    async lease(key, ms) {
      return lease(key, ms);
    },
    async getAndLease(key, leaseKey, ms) {
      return [read(key), lease(leaseKey, ms)];
    },
  };
}
