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
   * Stores `value` under `key` for `keepMs`, unless the stored document holds a newer reading (a
   * greater `readAt`, see readAtOf): a refresh that began earlier, or failed, never replaces a reading
   * another instance wrote meanwhile. A stored reading time after `plausibleUntil` (a clock running
   * ahead wrote it), or equal to `unreadableAt` (the writer found that document unreadable), does not
   * count as newer. In the same round trip, releases the refresh lease `releaseLease` when given and
   * still held under its token. Answers with the document kept when it was not stored.
   */
  set(key: string, value: unknown, keepMs: number, options?: SetOptions): Promise<SetOutcome>;
  /**
   * Takes the lease `key` for `ms` under `token` (SET NX PX) and reads `entryKey` right after it, in
   * one round trip: an entry written by a holder that let go of the lease just before is seen, so it
   * is not read twice. `token` is the taker's own (unique per lease taken): only it releases the lease.
   */
  lease(
    key: string,
    ms: number,
    entryKey: string,
    token: string,
  ): Promise<{ taken: boolean; entry: unknown }>;
  /**
   * Gives a lease back (DEL), only while it still holds `token`: a holder whose lease ran out, and was
   * taken by another instance since, leaves the other's lease alone.
   */
  release(key: string, token: string): Promise<void>;
}

/** A lease this instance holds: its key and the token it was taken with. */
export interface HeldLease {
  key: string;
  token: string;
}

export type SetOutcome = { stored: true } | { stored: false; kept: unknown };
export interface SetOptions {
  /** The lease to release with the write, if it still holds its token. */
  releaseLease?: HeldLease;
  /** Latest reading time (epoch ms) a stored document may claim and still be kept as newer. */
  plausibleUntil?: number;
  /**
   * The reading time of the stored document the writer read and could not use (it failed the kind's
   * schema): that document is replaced whatever its reading time, while one another instance stored
   * since, with another reading time, is kept as usual.
   */
  unreadableAt?: number;
}

/** A document's reading time (`readAt`, epoch ms), or null when it has none (no reading, or not an entry). */
export function readAtOf(document: unknown): number | null {
  const readAt = (document as { readAt?: unknown } | null)?.readAt;
  return typeof readAt === 'number' && Number.isFinite(readAt) ? readAt : null;
}

/** Whether a document read at `storedAt` holds a newer (plausible, readable) reading than one at `readAt`. */
function holdsNewer(storedAt: number | null, readAt: number | null, options: SetOptions): boolean {
  const { plausibleUntil = Number.POSITIVE_INFINITY, unreadableAt } = options;
  return (
    storedAt !== null &&
    storedAt > (readAt ?? Number.NEGATIVE_INFINITY) &&
    storedAt <= plausibleUntil &&
    storedAt !== unreadableAt
  );
}

/** Creates the in-process store used when no Redis is configured; entries and leases expire like Redis keys. */
export function createMemoryLastGoodStore(now: () => number = Date.now): LastGoodStore {
  const values = new Map<string, { value: unknown; expiresAt: number }>();
  const read = (key: string) => {
    const hit = values.get(key);
    if (hit && hit.expiresAt <= now()) values.delete(key);
    return hit && hit.expiresAt > now() ? hit.value : null;
  };
  const lease = (key: string, ms: number, token: string) => {
    if (read(key) !== null) return false;
    values.set(key, { value: token, expiresAt: now() + ms });
    return true;
  };
  // Only the holder's own token releases a lease (an expired one reads as null, so it is gone anyway).
  const release = ({ key, token }: HeldLease) => {
    if (read(key) === token) values.delete(key);
  };
  return {
    scope: 'memory',
    async get(key) {
      return read(key);
    },
    async set(key, value, keepMs, options = {}) {
      if (options.releaseLease) release(options.releaseLease);
      const stored = read(key);
      // Copies, as Redis would hold: later changes to either object must not show.
      if (holdsNewer(readAtOf(stored), readAtOf(value), options))
        return { stored: false, kept: structuredClone(stored) };
      values.set(key, { value: structuredClone(value), expiresAt: now() + keepMs });
      return { stored: true };
    },
    async lease(key, ms, entryKey, token) {
      return { taken: lease(key, ms, token), entry: read(entryKey) };
    },
    async release(key, token) {
      release({ key, token });
    },
  };
}
