import { z } from 'zod';
import { allSettled, settleWithin } from '../async';
import { stillWaiting } from '../clock';
import { type AppDeps, getState } from '../deps';
import { STORE_TIMEOUT_MAX_MS } from './create-last-good';
import { type HeldLease, type LastGoodStore, readAtOf } from './last-good';

/** One upstream data kind read through the shared entry (mainnet gas, a price, an L2 network). */
export interface SharedKind<T> {
  /** Store key of the entry; the lease is `<key>:lease`. */
  key: string;
  /** Validates the reading read back from the store, which is shared and may hold anything. */
  schema: z.ZodType<T>;
  /** A reading younger than this is fresh (the kind's refresh cadence). */
  freshMs: number;
  /** A shorter cadence for some readings (an incomplete one is retried sooner); `freshMs` when absent. */
  freshMsOf?(value: T): number;
  /**
   * The upstream read: the newest reading and when it was taken; throws when there is none. It must be
   * over by `deadlineAt` (epoch ms): the end of the refresh's lease less the write's budget, so the
   * holder's write lands while the lease is still its own (readBudgetMs).
   */
  read(previous: T | null, deadlineAt: number): Promise<{ value: T; readAt: number }>;
  /** Names a failed read (`timeout`, `error`, `cooldown`...); `error` when absent. */
  failureKind?(error: unknown): string;
  /**
   * An older reading a failed read still brought (the explorer's of a block too old to be live, dated
   * by that block), or null. The refresh still fails (its back-off as for any failure), but the entry
   * keeps this reading as its last good one when it is newer than the one it holds.
   */
  fallbackOf?(error: unknown): { value: T; readAt: number } | null;
}

/** What a caller gets: the newest reading known (maybe none), its age and why it was not refreshed. */
export interface SharedReading<T> {
  value: T | null;
  /** When `value` was read upstream (epoch ms); null with no value. */
  readAt: number | null;
  /** True when this call read the upstream itself (or waited on this instance's read). */
  readNow: boolean;
  /**
   * The last refresh failed: its kind, when it failed (`failedAt`, epoch ms, on the clock of the
   * instance that tried), when this instance next looks for a refresh (`retryAt`, epoch ms, on its own
   * clock: see retryAtOf), whether this call made the attempt, and whether it waited for another
   * instance's attempt (the lease holder's), which the kind then names. Neither: the fleet is backing
   * off, and the entry was served without asking or waiting.
   */
  failure: { kind: string; failedAt: number; retryAt: number; attempted: boolean; waited: boolean } | null;
  /**
   * When this instance took the entry it serves (from the store, or its own read): the last time it
   * looked, which dates an answer without a reading when no failure says more (a wait for the lease
   * holder that ran out).
   */
  heldAt: number;
}

/**
 * The stored document: the reading (the last-known-good value) and the last refresh failure. A failure
 * holds its retry time and count, not its own time: that follows from them (failedAtOf), in entries
 * written by every release, so a reader needs no new field and the keys no new version.
 */
const entrySchema = <T>(schema: z.ZodType<T>) =>
  z.object({
    value: schema.nullable(),
    readAt: z.number().int().nonnegative().nullable(),
    failure: z
      .object({
        kind: z.string().max(40),
        retryAt: z.number().int().nonnegative(),
        count: z.number().int().positive(),
      })
      .nullable(),
  });
type Entry<T> = { value: T | null; readAt: number | null; failure: Failure | null };
type Failure = { kind: string; retryAt: number; count: number };
/** This instance's copy: held from `heldAt` (a clock set back before it ends it) until `recheckAt`. */
type Held = {
  entry: Entry<unknown>;
  heldAt: number;
  recheckAt: number;
  readNow: boolean;
  attempted: boolean;
  /** Its failure is the one the lease holder wrote while this instance waited for it. */
  waited: boolean;
};

/** Redis keeps an entry a day: it is the last-known-good value, served for at most 5 minutes by the services. */
export const ENTRY_KEEP_MS = 86_400_000;
/** A due entry is refreshed this share of its cadence early, so the fleet never serves one past its cadence. */
export const REFRESH_LEAD = 1 / 6;
/** An instance that saw another holding the lease looks again this soon. */
const RECHECK_MS = 1_000;
/**
 * With no usable entry, waits for the lease holder's reading: polls at these delays (the last one
 * repeated), for at most HOLDER_WAIT_MS counted with the polls' own store calls (about what a healthy
 * upstream read takes at worst; a slow store must not stretch it), then reads itself. A caller with a
 * deadline (a price request) waits until HOLDER_WAIT_RESERVE_MS before it instead, then serves the
 * entry as it is: the holder began earlier with the same budget, so its reading (or failure) is in by
 * then unless it died, and reading every source here as well would only multiply the upstream calls.
 */
const HOLDER_POLLS_MS = [100, 200, 300, 400, 500, 500];
const HOLDER_WAIT_MS = 2_000;
/** A caller with a deadline (ReadOptions) stops waiting this long before it, for the last poll's store call. */
const HOLDER_WAIT_RESERVE_MS = 250;
/**
 * After a failed or late Redis call, this instance reads upstream directly for this long, doubling while
 * it keeps failing; a store call begun since that answers meanwhile (a lease holder's write) ends it
 * (storeAnswered).
 */
export const STORE_SICK_MS = 10_000;
const STORE_SICK_MAX_MS = 60_000;
/** A failed refresh is retried (fleet-wide, by one instance) after this, doubling up to the max. */
const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = 60_000;
/** How far ahead of this instance's clock another instance's may run before its times are refused. */
export const CLOCK_SKEW_MS = 30_000;
/**
 * A slot's read (`notBefore`) that meets a back-off another read set, ending within this, waits for it
 * to end (plus up to BACKOFF_WAIT_JITTER_MS, so the fleet's instances do not all come at once), then
 * reads under the lease as a due entry is read: one instance reads, the others wait for its reading.
 * A snapshot run (90-s slots; a tick up to 60 s in on either host, cron/snapshot-job.ts
 * SNAPSHOT_LATEST_TICK_MS) so still ends well inside its slot: its read begins by 76 s in at the latest. A longer back-off is not waited for: the part is skipped.
 */
export const BACKOFF_WAIT_MAX_MS = 15_000;
const BACKOFF_WAIT_JITTER_MS = 500;

interface LocalState {
  held: Map<string, Held>;
  inFlight: Map<string, Promise<SharedReading<unknown>>>;
  sickUntil: number;
  /** Consecutive failed store calls; each one doubles the time without the store. */
  storeFailures: number;
  /**
   * How many times a failure has sent this instance off the store (markSick): a call's answer ends
   * that time only when no failure sent it off since the call began (storeAnswered).
   */
  sickMarks: number;
  /** Kinds whose next read must not serve a reading from before the given time (requireFreshReading). */
  notBefore: Map<string, number>;
  /** Bumped on every reading newly held and every requireFreshReading (sharedReadVersion). */
  version: number;
  /** Ends each slot read's wait for a back-off now under way (endBackoffWaits). */
  backoffWaits: Set<() => void>;
  /** Set by endBackoffWaits (the host is shutting down): no slot read waits for a back-off any more. */
  backoffWaitsEnded: boolean;
}

type Deps = Pick<AppDeps, 'config' | 'now' | 'log' | 'state' | 'lastGood'>;

export interface ReadOptions {
  /**
   * Only a reading taken at or after this time (epoch ms) by a refresh that succeeded will do (readSince:
   * a failed refresh's entry does not, whatever its reading's time); an older one is refreshed first,
   * unless the fleet's last refresh failed and is backing off: a back-off ending within
   * BACKOFF_WAIT_MAX_MS is waited for and the entry refreshed then (without `deadlineAt`); else the
   * entry is served as it is, with that failure (a snapshot's slot then skips the reading as a last
   * good one).
   */
  notBefore?: number;
  /** The caller's own deadline (epoch ms): store calls never run past it. */
  deadlineAt?: number;
}

/**
 * ReadOptions with requireFreshReading's demand (`forced`: a reading since `notBefore` even through a
 * back-off), and the retry time of the back-off a slot's read has waited out (`waitedOut`: a failure
 * retried by then no longer holds it back, and it waits for no other).
 */
type RefreshOptions = ReadOptions & { forced?: boolean; waitedOut?: number };

/**
 * Returns the newest reading of `kind`: from this instance's copy while it is fresh, else from the
 * shared entry, refreshed by one instance of the fleet under a lease (SET NX PX) while the others
 * serve the current entry; with no entry they wait briefly for the lease holder, then read
 * themselves (a caller with a deadline waits within it, then serves the entry as it is). A slow,
 * down or garbled store sends this instance to its own upstream reads for STORE_SICK_MS (doubling
 * while it stays sick) after one bounded wait. Never throws; `notBefore` asks for a reading taken
 * since then.
 */
export function readThrough<T>(
  deps: Deps,
  kind: SharedKind<T>,
  readOptions: ReadOptions = {},
): Promise<SharedReading<T>> {
  return readKind(deps, kind, readOptions);
}

function readKind<T>(
  deps: Deps,
  kind: SharedKind<T>,
  readOptions: RefreshOptions,
): Promise<SharedReading<T>> {
  const local = localState(deps);
  const required = local.notBefore.get(kind.key);
  const options: RefreshOptions =
    required === undefined
      ? readOptions
      : { ...readOptions, notBefore: Math.max(required, readOptions.notBefore ?? 0), forced: true };
  local.notBefore.delete(kind.key);

  const held = local.held.get(kind.key);
  const wantsNewer = options.notBefore !== undefined && !(held && readSince(held.entry, options.notBefore));
  const now = deps.now();
  if (held && held.heldAt <= now && now < held.recheckAt && !wantsNewer)
    return Promise.resolve(view(held, false) as SharedReading<T>);
  const pending = local.inFlight.get(kind.key) as Promise<SharedReading<T>> | undefined;
  if (pending) {
    // A read begun without `notBefore` (a request's) may serve an entry older than it: read again,
    // unless that read has just tried the upstream and failed, or waited for the lease holder's try
    // that failed (a second try now would fail too, and step the fleet's back-off twice). Until
    // 2026-11-28 a read that had only waited for the holder was read again at once, right after the
    // fleet's failed refresh.
    // A slot's read then waits for that back-off to end if it ends soon (afterBackoff).
    const notBefore = options.notBefore;
    if (notBefore === undefined) return pending;
    return pending.then((reading) =>
      readSince(reading, notBefore) ||
      reading.failure?.attempted ||
      (reading.failure?.waited && !options.forced)
        ? afterBackoff(deps, kind, local, options, reading, false)
        : readKind(deps, kind, options),
    );
  }
  const started = refresh(deps, kind, local, held?.entry as Entry<T> | undefined, options)
    .then((next) => {
      local.held.set(kind.key, next);
      local.version += 1;
      return view(next, true) as SharedReading<T>;
    })
    .finally(() => local.inFlight.delete(kind.key));
  local.inFlight.set(kind.key, started as Promise<SharedReading<unknown>>);
  // Waited for outside the read in flight, so requests of this instance meanwhile are served from its
  // copy (or refresh it when the back-off ends) instead of joining the wait.
  return options.notBefore === undefined
    ? started
    : started.then((reading) => afterBackoff(deps, kind, local, options, reading, true));
}

/**
 * A slot's read (`notBefore`, neither forced nor with a deadline) that got an entry from before its
 * slot held back by a failure another read made (found in the entry, the lease holder's it waited
 * for, or that of a request's read it joined): when that back-off ends within BACKOFF_WAIT_MAX_MS, it
 * waits for it to end, then reads once more (once only: another failure by then ends it). Until
 * 2026-11-28 the slot's part was skipped at once, and lost on a host that runs each slot once (the
 * Node host; on the Worker every other slot) though the upstream was back within seconds.
 */
async function afterBackoff<T>(
  deps: Deps,
  kind: SharedKind<T>,
  local: LocalState,
  options: RefreshOptions,
  reading: SharedReading<T>,
  own: boolean,
): Promise<SharedReading<T>> {
  const { notBefore, forced, deadlineAt, waitedOut } = options;
  if (notBefore === undefined || forced || deadlineAt !== undefined || waitedOut !== undefined)
    return reading;
  // Its own attempt failed: that is the slot's try, as before. A failed refresh's reading, though
  // dated since the slot's start (the explorer's old block a failed mainnet read brought, or a reading
  // of earlier in the slot), is no reading since it: the slot waits too (readSince).
  if (!reading.failure || (own && reading.failure.attempted)) return reading;
  const retryAt = local.held.get(kind.key)?.entry.failure?.retryAt;
  if (retryAt === undefined || local.backoffWaitsEnded) return reading;
  const left = retryAt - deps.now();
  if (left <= 0 || left > BACKOFF_WAIT_MAX_MS) return reading;
  if (!(await backoffWait(local, left + Math.random() * BACKOFF_WAIT_JITTER_MS))) return reading;
  return readKind(deps, kind, { ...options, waitedOut: retryAt });
}

/** Resolves true after `ms`, or false at once when endBackoffWaits ends it first. */
function backoffWait(local: LocalState, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const end = (over: boolean) => {
      clearTimeout(timer);
      local.backoffWaits.delete(stop);
      resolve(over);
    };
    const stop = () => end(false);
    const timer = setTimeout(() => end(true), ms);
    local.backoffWaits.add(stop);
  });
}

/**
 * Ends every slot read's wait for a back-off (afterBackoff), each then served as it was, and keeps any
 * from starting: the Node host shuts down without waiting up to BACKOFF_WAIT_MAX_MS for its tick.
 */
export function endBackoffWaits(deps: Pick<AppDeps, 'state'>): void {
  const local = localState(deps);
  local.backoffWaitsEnded = true;
  for (const stop of [...local.backoffWaits]) stop();
}

async function refresh<T>(
  deps: Deps,
  kind: SharedKind<T>,
  local: LocalState,
  previous: Entry<T> | undefined,
  { notBefore, deadlineAt, forced = false, waitedOut }: RefreshOptions,
): Promise<Held> {
  const due = (entry: Entry<T> | null) => isDue(kind, entry, deps.now(), notBefore, forced, waitedOut);
  const store = deps.lastGood;
  const leaseKey = `${kind.key}:lease`;
  const leaseMs = refreshLeaseMs(deps);
  const within = <R>(p: Promise<R>) => settleWithin(p, storeTimeoutMs(deps, deadlineAt));
  // This instance's own copy with times out of range (read before the clock was set back) is of
  // unknown age: it must neither win over the fleet's entry nor be kept as the last good reading.
  const mine = previous && !outOfRange(previous, deps.now()) ? previous : undefined;
  // The reading time of the stored document last read here when it failed the schema: this
  // instance's write replaces it, since no instance can use it (see SetOptions.unreadableAt).
  let unreadableAt: number | undefined;
  const readEntry = (raw: unknown) => {
    unreadableAt = undefined;
    return parseEntry(deps, kind, raw, () => {
      unreadableAt = readAtOf(raw) ?? undefined;
    });
  };
  if (!skippingStore(local, deps.now())) {
    try {
      const asked = local.sickMarks;
      const found = await within(store.get(kind.key));
      // The entry as found in the store: a failure the holder writes while this call waits differs
      // from its failure (this instance's own copy, newer, may hold none).
      const stored = readEntry(found);
      const current = newest(stored, mine);
      storeAnswered(local, asked);
      if (!due(current)) return hold(kind, current!, deps.now(), false, false);
      // The lease runs from when it may have been set in the store at the earliest: the call's start.
      const leasedAt = deps.now();
      const held: HeldLease = { key: leaseKey, token: crypto.randomUUID() };
      const lease = await within(store.lease(leaseKey, leaseMs, kind.key, held.token));
      if (lease.taken) {
        const latest = newest(readEntry(lease.entry), current ?? undefined);
        if (due(latest)) {
          const readBy = leasedAt + readBudgetMs(deps);
          return await readAndShare(deps, kind, local, latest, held, deadlineAt, readBy, unreadableAt);
        }
        // Another holder wrote it just before letting go of the lease: nothing to read.
        await within(store.release(leaseKey, held.token));
        return hold(kind, latest!, deps.now(), false, false);
      }
      // Another instance is refreshing: serve the current entry while it is fresh (held no longer than
      // that, so it is never served past its cadence as if a refresh had failed), else wait for it.
      if (current?.value != null && !isExpired(kind, current, deps.now()) && notBefore === undefined) {
        const expiresAt = (current.readAt ?? 0) + freshFor(kind, current);
        return {
          ...hold(kind, current, deps.now(), false, false),
          recheckAt: Math.min(deps.now() + RECHECK_MS, expiresAt),
        };
      }
      // Until 2026-11-28 a caller with a deadline waited 2 s at most (before that, 1 s for ETH), then read
      // every source itself though the holder was still within its budget: with CoinGecko hung, every
      // instance that met the holder did.
      // A slot's read that waited out a back-off waits for the holder's whole lease: reading here too
      // would be a second attempt of the fleet right after the back-off.
      const waitEnd =
        deadlineAt !== undefined
          ? deadlineAt - HOLDER_WAIT_RESERVE_MS
          : deps.now() + (waitedOut !== undefined ? leaseMs : HOLDER_WAIT_MS);
      // Bounded by the timers' own delays as well, should the clock stand still or go back meanwhile.
      const waitMs = waitEnd - deps.now();
      // The newest entry seen while waiting: a read of this instance's own after the wait counts its
      // failure from it (a failure the holder wrote meanwhile is one more, not the same one again).
      let seen = current;
      for (let poll = 0, waited = 0; waited < waitMs; poll += 1) {
        const left = waitEnd - deps.now();
        if (left <= 0) break;
        // The last poll comes at the end of the wait, not skipped for a timer's or a call's overshoot.
        const delay = Math.min(
          HOLDER_POLLS_MS[Math.min(poll, HOLDER_POLLS_MS.length - 1)] ?? RECHECK_MS,
          left,
        );
        waited += delay;
        await new Promise((resolve) => setTimeout(resolve, delay));
        const raw = await within(store.get(kind.key));
        const polled = readEntry(raw);
        seen = newest(polled, seen ?? undefined);
        if (polled && !due(polled)) {
          // A failure record that was not there when the wait began is the holder's: this call waited
          // for that attempt, so its kind (a timeout, errors) is this call's too. Until 2026-11-28 it
          // was taken for a back-off found at once (a price: `stale-cooldown`). A caller asking for a
          // reading since `notBefore` (a snapshot's slot) stops here too: until 2026-11-28 it waited
          // on, then read the upstream itself right after the fleet's failed refresh and wrote its
          // failure over the holder's with the count of the entry it had found first.
          // Until 2026-11-28 (later that day) it was compared with the failure of `current`, which
          // may be this instance's own newer copy without one: the store's old back-off, found at
          // once, was then named as the holder's failure (a price `stale-error`, not `stale-cooldown`).
          const waited = polled.failure !== null && polled.failure.retryAt !== stored?.failure?.retryAt;
          // This instance's own copy may hold a newer reading than the store's: serve that one, under
          // the store's back-off.
          const served = newest(polled, mine) ?? polled;
          return { ...hold(kind, { ...served, failure: polled.failure }, deps.now(), false, false), waited };
        }
        // Another document than the one found, that this instance cannot use (times out of range for
        // its clock, a shape it cannot read): the holder's, so waiting on would end with nothing. Until
        // 2026-11-28 an instance whose clock ran slow waited to its deadline, then answered without.
        // It reads for itself and leaves the store alone: the rest of the fleet can likely use it.
        if (raw != null && polled === null && readAtOf(raw) !== readAtOf(found)) {
          deps.log.warn('the new entry is unusable here; reading upstream here', { key: kind.key });
          const readBy = deps.now() + readBudgetMs(deps);
          return await readAndShare(deps, kind, local, current, undefined, deadlineAt, readBy);
        }
      }
      if (deadlineAt !== undefined) {
        // No time left to read: the entry's reading is served as last-known-good (a refresh that ran
        // out of time, so no failure of its own), or none, and looked at again in a second.
        deps.log.warn('lease holder late; serving the entry as it is', { key: kind.key });
        const entry = { value: current?.value ?? null, readAt: current?.readAt ?? null, failure: null };
        return hold(kind, entry, deps.now(), false, false);
      }
      if (waitedOut !== undefined && seen) return hold(kind, seen, deps.now(), false, false);
      // The holder is late: read here and share the result with the others.
      deps.log.warn('lease holder late; reading upstream here', { key: kind.key });
      const readBy = deps.now() + readBudgetMs(deps);
      return await readAndShare(deps, kind, local, seen, null, deadlineAt, readBy, unreadableAt);
    } catch (error) {
      markSick(deps, local);
      deps.log.warn('shared store unavailable; reading upstream directly', {
        key: kind.key,
        error: String(error).slice(0, 200),
      });
    }
  }
  // Without the store, this instance's own failure record is the back-off, which a snapshot's slot
  // respects too (only requireFreshReading reads through it).
  if (notBefore !== undefined && mine && !due(mine)) return hold(kind, mine, deps.now(), false, false);
  return readAndShare(
    deps,
    kind,
    local,
    mine ?? null,
    undefined,
    deadlineAt,
    deps.now() + readBudgetMs(deps),
  );
}

/**
 * Reads upstream (by `readBy`) and keeps the result as the new entry: a reading, or the failure with
 * the previous reading kept as last-known-good (or the failed read's fallback when newer: see
 * SharedKind.fallbackOf) and a retry time that every instance respects. `lease`
 * is the lease to release with the write (null: none held), or undefined to leave the store alone
 * (unreachable). `unreadableAt`: the reading time of the stored document found unusable, which the
 * write replaces.
 */
async function readAndShare<T>(
  deps: Deps,
  kind: SharedKind<T>,
  local: LocalState,
  current: Entry<T> | null,
  lease: HeldLease | null | undefined,
  deadlineAt: number | undefined,
  readBy: number,
  unreadableAt?: number,
): Promise<Held> {
  let entry: Entry<T>;
  try {
    const { value, readAt } = await kind.read(current?.value ?? null, readBy);
    entry = { value, readAt, failure: null };
  } catch (error) {
    const count = (current?.failure?.count ?? 0) + 1;
    const retryAt = deps.now() + retryDelayMs(count);
    // An older reading the failed read brought is the last good one when newer than the entry's (the
    // store's write keeps a newer one another instance wrote meanwhile, as for any write).
    const fallback = kind.fallbackOf?.(error) ?? null;
    const lastGood = fallback && fallback.readAt > (current?.readAt ?? -1) ? fallback : current;
    entry = {
      value: lastGood?.value ?? null,
      readAt: lastGood?.readAt ?? null,
      failure: { kind: kind.failureKind?.(error) ?? 'error', retryAt, count },
    };
  }
  // A holder writes even when a store call failed meanwhile (another kind's, a record beside this
  // read): the store took its lease moments ago, and only this write shares the reading and frees the
  // lease, which the fleet would otherwise wait out. It costs one store call's budget at most, once.
  // Until 2026-11-28 it was skipped then, and the fleet's entry stayed due with its lease held.
  if (lease || (lease === null && !skippingStore(local, deps.now()))) {
    try {
      const asked = local.sickMarks;
      const write = deps.lastGood.set(kind.key, entry, ENTRY_KEEP_MS, {
        ...(lease ? { releaseLease: lease } : {}),
        ...(unreadableAt !== undefined ? { unreadableAt } : {}),
        plausibleUntil: deps.now() + CLOCK_SKEW_MS,
      });
      const outcome = await settleWithin(write, storeTimeoutMs(deps, deadlineAt));
      // The store answered: this instance is back on it, though another call had sent it off during the
      // read (until later on 2026-11-28 it went on reading every kind upstream until that mark ran out).
      storeAnswered(local, asked);
      // Another instance stored a newer reading meanwhile (this read began earlier, or failed): it stays,
      // and is what this instance holds too.
      const kept = outcome.stored ? null : parseEntry(deps, kind, outcome.kept);
      if (kept && (kept.readAt ?? 0) > (entry.readAt ?? 0)) return hold(kind, kept, deps.now(), false, false);
    } catch (error) {
      markSick(deps, local);
      deps.log.warn('shared entry not saved', { key: kind.key, error: String(error).slice(0, 200) });
    }
  }
  return hold(kind, entry, deps.now(), true, true);
}

function localState(deps: Pick<AppDeps, 'state'>): LocalState {
  return getState<LocalState>(deps, 'shared-read', () => ({
    held: new Map(),
    inFlight: new Map(),
    sickUntil: 0,
    storeFailures: 0,
    sickMarks: 0,
    notBefore: new Map(),
    version: 0,
    backoffWaits: new Set(),
    backoffWaitsEnded: false,
  }));
}

/**
 * Makes this instance's next read of `key` refresh any reading taken before now (an operator's or a
 * test's "read it again"); a failing upstream then leaves the last good reading served as stale.
 */
export function requireFreshReading(deps: Pick<AppDeps, 'state' | 'now'>, key: string): void {
  const local = localState(deps);
  local.notBefore.set(key, deps.now());
  local.version += 1;
}

/** Resolves once every shared read this instance has in flight now has settled, never rejecting. */
export function sharedReadsSettled(deps: Pick<AppDeps, 'state'>): Promise<void> {
  return allSettled(localState(deps).inFlight.values());
}

/** A number that changes whenever this instance holds a new reading or is asked for a fresh one. */
export function sharedReadVersion(deps: Pick<AppDeps, 'state'>): number {
  return localState(deps).version;
}

/** How callSharedStore runs a call: by when a caller needs it, and whether anyone waits for it. */
export interface SideCallOptions {
  /** The caller's deadline (epoch ms): the call never runs past it. */
  deadlineAt?: number;
  /**
   * Nobody waits for the call (a record written beside a refresh): its failure is logged but does not
   * send this instance off the store, since it cost no caller any time. A store that is really down
   * fails this instance's next read-through call as well, which does.
   */
  detached?: boolean;
}

/**
 * Runs one call to the shared store beside the read-through (a small record kept with the entries)
 * within a store call's budget (and the caller's deadline) and this instance's back-off: undefined
 * when the store is being skipped or the call fails, which counts towards skipping it like a failed
 * read-through call, unless the call is `detached`. Until 2026-11-28 a detached record's timeout (the
 * known mainnet head's) made this instance skip the store for 10 s: its own reads of every kind went
 * upstream meanwhile, and a lease holder still reading skipped its write.
 */
export async function callSharedStore<R>(
  deps: Deps,
  call: (store: LastGoodStore) => Promise<R>,
  { deadlineAt, detached = false }: SideCallOptions = {},
): Promise<R | undefined> {
  const local = localState(deps);
  if (skippingStore(local, deps.now())) return undefined;
  const budgetMs = storeTimeoutMs(deps, deadlineAt);
  const startedAt = deps.now();
  const asked = local.sickMarks;
  try {
    const result = await settleWithin(call(deps.lastGood), budgetMs);
    storeAnswered(local, asked);
    return result;
  } catch (error) {
    // A call the caller's deadline cut below the store's own budget, which ran out of that, says
    // nothing of the store (until later on 2026-11-28 it sent this instance off the store too).
    const cutShort = budgetMs < storeTimeoutMs(deps, undefined) && deps.now() - startedAt >= budgetMs;
    if (!detached && !cutShort) markSick(deps, local);
    deps.log.warn('shared store unavailable', { error: String(error).slice(0, 200), detached });
    return undefined;
  }
}

/** Skips the store for a while: 10 s after a failure, doubling up to a minute while it keeps failing. */
function markSick(deps: Deps, local: LocalState): void {
  // Calls that were in flight together fail together: one outage, one step of the back-off.
  if (skippingStore(local, deps.now())) return;
  local.storeFailures += 1;
  local.sickMarks += 1;
  local.sickUntil = deps.now() + Math.min(STORE_SICK_MS * 2 ** (local.storeFailures - 1), STORE_SICK_MAX_MS);
}

/**
 * A store call begun when `asked` failures had sent this instance off the store (LocalState.sickMarks)
 * answered within its budget. When none has since, the store is not sick (whatever a call failed
 * before it began said): this instance uses it again at once, and a failure after this one starts the
 * back-off at 10 s. A lease holder's write begun while the store was skipped does so.
 *
 * A call begun before the failure that sent the instance off changes neither: the failure is the
 * newer word on the store, and on a slow one (answers near the 1-s budget) a call in flight nearly
 * always answers after another's timeout. Until later on 2026-11-28 such an answer reset the run of
 * failures, so the back-off never doubled, and (since earlier that day) ended the time off the store
 * within a second of the timeout: the instance paid a store call's 1 s every few seconds instead of
 * once per back-off.
 */
function storeAnswered(local: LocalState, asked: number): void {
  if (asked !== local.sickMarks) return;
  local.storeFailures = 0;
  local.sickUntil = 0;
}

/** Whether this instance is still skipping the store after a failure. */
function skippingStore(local: LocalState, now: number): boolean {
  return stillWaiting(local.sickUntil, now, STORE_SICK_MAX_MS);
}

/** This instance's copy of an entry and when to look at the shared one again (jittered, so instances spread). */
function hold<T>(
  kind: SharedKind<T>,
  entry: Entry<T>,
  now: number,
  readNow: boolean,
  attempted: boolean,
): Held {
  const freshMs = freshFor(kind, entry);
  const lead = freshMs * REFRESH_LEAD;
  let recheckAt: number;
  if (entry.failure && entry.failure.retryAt > now)
    recheckAt = entry.failure.retryAt + Math.random() * RECHECK_MS;
  else if (entry.readAt !== null) recheckAt = entry.readAt + freshMs - lead + (Math.random() * lead) / 2;
  else recheckAt = now;
  return {
    entry,
    heldAt: now,
    recheckAt: Math.max(recheckAt, now + RECHECK_MS),
    readNow,
    attempted,
    waited: false,
  };
}

function view(held: Held, fromRefresh: boolean): SharedReading<unknown> {
  const { value, readAt, failure } = held.entry;
  return {
    value,
    readAt,
    readNow: fromRefresh && held.readNow,
    failure: failure
      ? {
          kind: failure.kind,
          failedAt: failedAtOf(failure),
          retryAt: retryAtOf(held),
          attempted: fromRefresh && held.attempted,
          waited: fromRefresh && held.waited,
        }
      : null,
    heldAt: held.heldAt,
  };
}

/**
 * When this instance next looks for a refresh of a failed entry it holds: the failure's retry time
 * (the fleet's back-off, or this instance's own without the store), or, as it holds its copy until a
 * moment up to RECHECK_MS after that (jittered, so the fleet's instances do not come at once), that
 * moment: until then it serves the failure again without asking. So the earliest time a request here
 * can be answered by a new attempt (on another instance, up to a second sooner).
 */
function retryAtOf(held: Held): number {
  return Math.max(held.entry.failure?.retryAt ?? 0, held.recheckAt);
}

/** The longest retry hint given, in seconds: the back-off's longest step. */
export const MAX_RETRY_AFTER_SECONDS = RETRY_MAX_MS / 1000;

/**
 * The whole seconds from `now` until `retryAt` (a reading's `failure.retryAt`), counted up: what a
 * caller is told to wait before asking again (a 503's Retry-After). At least 1, and at most
 * MAX_RETRY_AFTER_SECONDS: a time further off comes only from retryAtOf's jitter (a second at most)
 * or from a peer whose clock runs ahead (up to CLOCK_SKEW_MS), no ground to keep a client away longer.
 */
export function secondsUntilRetry(retryAt: number, now: number): number {
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil((retryAt - now) / 1000)));
}

/** The back-off after the `count`-th failed refresh in a row: 5 s, doubling up to a minute. */
function retryDelayMs(count: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** (count - 1), RETRY_MAX_MS);
}

/**
 * When a failed refresh failed: its retry time less the back-off its count gave it (readAndShare set
 * the retry time from that moment). Entries written before 2026-11-28 hold the same two fields under
 * the same formula, so theirs is told as well.
 */
function failedAtOf(failure: Failure): number {
  return failure.retryAt - retryDelayMs(failure.count);
}

/**
 * Due for a refresh: no reading, or one past its refresh point or older than `notBefore`, unless a
 * failed refresh is backing off (`forced`, requireFreshReading's demand: even then; a back-off
 * retried by `waitedOut`, which a slot's read has waited out, is over).
 */
function isDue<T>(
  kind: SharedKind<T>,
  entry: Entry<T> | null,
  now: number,
  notBefore: number | undefined,
  forced: boolean,
  waitedOut?: number,
): boolean {
  if (!entry) return true;
  // Asked for explicitly by an operator (requireFreshReading): read again even while a failure backs
  // off. A snapshot's slot is not (it waits for a back-off that ends soon, afterBackoff): until
  // 2026-11-28 every instance's snapshot read the upstream again during the fleet's back-off, right
  // after its failed refresh.
  if (forced && notBefore !== undefined && !readSince(entry, notBefore)) return true;
  const waitedFor = waitedOut !== undefined && entry.failure !== null && entry.failure.retryAt <= waitedOut;
  if (entry.failure && now < entry.failure.retryAt && !waitedFor) return false;
  if (notBefore !== undefined && !readSince(entry, notBefore)) return true;
  return entry.readAt === null || now - entry.readAt >= freshFor(kind, entry) * (1 - REFRESH_LEAD);
}

/**
 * Whether an entry (or a reading served from one) is a reading taken since `notBefore` (ReadOptions):
 * one a refresh that succeeded brought. A failed refresh's entry is not, though its reading may be
 * dated after `notBefore`: a reading taken earlier in a snapshot's slot, or since 2026-11-28 the
 * explorer's old block (72 s to 5 minutes old) that a failed mainnet read brought (fallbackOf), dated
 * by that block. Until later on 2026-11-28 its date was taken at its word: a slot's read begun 72 to
 * 76 s into the slot served that stand-in at once, and the snapshot skipped the slot as a last good
 * reading instead of waiting out the back-off (15 s at most) and reading again (afterBackoff).
 */
function readSince(entry: { readAt: number | null; failure: unknown | null }, notBefore: number): boolean {
  return entry.failure === null && (entry.readAt ?? 0) >= notBefore;
}

function isExpired<T>(kind: SharedKind<T>, entry: Entry<T>, now: number): boolean {
  return entry.readAt === null || now - entry.readAt >= freshFor(kind, entry);
}

function freshFor<T>(kind: SharedKind<T>, entry: Entry<T>): number {
  return entry.value !== null && kind.freshMsOf ? kind.freshMsOf(entry.value) : kind.freshMs;
}

/** The entry with the newer reading (a failure record counts as newer news for the same reading). */
function newest<T>(shared: Entry<T> | null, mine: Entry<T> | undefined): Entry<T> | null {
  if (!mine) return shared;
  if (!shared) return mine;
  return (mine.readAt ?? 0) > (shared.readAt ?? 0) ? mine : shared;
}

/**
 * Validates a stored document; anything else is logged, reported to `onUnreadable` and treated as
 * absent (the next holder overwrites it). So are times no instance could have written: a reading from
 * the future would be served as fresh, and a retry past the longest back-off would stop every instance
 * refreshing (an instance whose clock runs ahead, or a mistyped entry, could otherwise take a kind
 * down fleet-wide).
 */
function parseEntry<T>(
  deps: Deps,
  kind: SharedKind<T>,
  raw: unknown,
  onUnreadable?: () => void,
): Entry<T> | null {
  if (raw === null || raw === undefined) return null;
  const parsed = entrySchema(kind.schema).safeParse(raw);
  if (!parsed.success) {
    deps.log.warn('ignored an unreadable shared entry', { key: kind.key });
    onUnreadable?.();
    return null;
  }
  if (outOfRange(parsed.data, deps.now())) {
    deps.log.warn('ignored a shared entry with times out of range', { key: kind.key });
    return null;
  }
  return parsed.data as Entry<T>;
}

/**
 * Times no instance could have written by `now`: a reading more than CLOCK_SKEW_MS ahead, a retry past
 * the longest back-off beyond that. Another instance's clock running ahead, a mistyped entry, or this
 * instance's own copy from before its clock was set back.
 */
function outOfRange(entry: Pick<Entry<unknown>, 'readAt' | 'failure'>, now: number): boolean {
  const latest = now + CLOCK_SKEW_MS;
  return (entry.readAt ?? 0) > latest || (entry.failure?.retryAt ?? 0) > latest + RETRY_MAX_MS;
}

/**
 * How long a refresh holds its lease: twice the upstream budget (a kind may read a second source
 * after the first failed) and a second for the store's write. Its length bounds what a dead holder
 * costs the fleet, and the snapshot job's timing (cron/snapshot-job.ts SNAPSHOT_LATEST_TICK_MS).
 */
function refreshLeaseMs(deps: Deps): number {
  return 2 * deps.config.upstreamTimeoutMs + 1_000;
}

/**
 * How long a refresh's upstream read may take (SharedKind.read's deadline): the lease less the
 * write's budget, so that the holder's write lands while the lease is its own, and no other instance
 * takes it and reads every upstream again meanwhile. Until 2026-11-28 a mainnet read could take 7.85 s
 * before its write (every RPC provider hung, a slow store and explorer, the base-fee rank's 1.5 s)
 * against a 6-s lease. The same budget without a lease (no store, or a holder that is late).
 */
function readBudgetMs(deps: Deps): number {
  return refreshLeaseMs(deps) - writeReserveMs(deps);
}

/**
 * What a refresh's read leaves of its lease for the write: a store call's budget over the network
 * (Redis); in-process (a Node host without Redis), where the write takes no time, a margin for the
 * event loop, so the read keeps the rest (the explorer backstop its whole budget after every provider
 * hung). Until later on 2026-11-28 the in-process store reserved a Redis call's second too.
 */
function writeReserveMs(deps: Deps): number {
  return deps.lastGood.scope === 'redis' ? storeTimeoutMs(deps, undefined) : IN_PROCESS_WRITE_RESERVE_MS;
}
const IN_PROCESS_WRITE_RESERVE_MS = 250;

/** A store call's budget: at most a second (or the upstream timeout), and never past the caller's deadline. */
function storeTimeoutMs(deps: Deps, deadlineAt: number | undefined): number {
  const budget = Math.min(STORE_TIMEOUT_MAX_MS, deps.config.upstreamTimeoutMs);
  return deadlineAt === undefined ? budget : Math.max(1, Math.min(budget, deadlineAt - deps.now()));
}
