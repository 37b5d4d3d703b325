import { z } from 'zod';
import { type AppDeps, getState } from '../deps';
import { CLOCK_SKEW_MS, callSharedStore, ENTRY_KEEP_MS, type SideCallOptions } from '../store/shared-read';
import { computeMainnetHeadFloor, SLOT_SECONDS } from '../upstream/rpc-mainnet-gas';

/**
 * The known mainnet head: the newest block number an RPC provider served and when it was seen (epoch
 * ms), kept in the shared store (fleet-wide with Redis, else in-process) for a day after the last one,
 * so the explorer backstop, which gives no timestamp, is held to it long after the providers fail.
 */
const KnownHeadSchema = z.object({
  number: z.number().int().positive(),
  readAt: z.number().int().nonnegative(),
});
type KnownHead = z.infer<typeof KnownHeadSchema>;

/** Its key in the shared store, beside the read-through entries. */
export const KNOWN_HEAD_KEY = 'mainnet-head';

const SLOT_MS = SLOT_SECONDS * 1000;
/**
 * How far a head may run ahead of the known one plus a block per 12-s slot since: the known head may
 * have been a minute old when seen (5 blocks) and another instance's clock 30 s behind (3), with a
 * block or two to spare. Were slots ever shortened, heads would stop being kept after a gap, and the
 * explorer's floor would only be lower (the known head stays a real one).
 */
const AHEAD_TOLERANCE_BLOCKS = 10;
/**
 * How far (in blocks, about a minute) the explorer may trail the known head; with the slot under way,
 * also the age its block's own time may show (EXPLORER_MAX_BLOCK_AGE_MS in explorer-gas.ts).
 */
export const EXPLORER_MAX_LAG_BLOCKS = 5;
/**
 * The share of the slots since the known head the explorer must have moved on by. Mainnet has left
 * under 1 % of its slots empty since the Merge; counting only half leaves room for the worst hours of
 * an incident, so an honest explorer is never refused, while one stuck for over half that time is.
 */
const COUNTED_SLOT_SHARE = 0.5;

type Deps = Pick<AppDeps, 'config' | 'now' | 'log' | 'state' | 'lastGood'>;

/**
 * Keeps `number`, the head of a live RPC reading, as the known head, unless it is ahead of the known
 * one by more than a block per slot since (and a small tolerance): a provider numbering far ahead
 * (another chain, a bug) whose reading passed the other checks cannot make an honest explorer look
 * stale. A head behind the known one is kept (the newest seen wins), so one bogus head that got in
 * with nothing to compare against is gone at the next honest reading. Never throws. Its store calls
 * are detached (nobody waits for the record): a slow store costs the record, never this instance's
 * use of the store (see callSharedStore).
 */
export async function rememberMainnetHead(deps: Deps, number: number): Promise<void> {
  const local = localHead(deps);
  const known = usable(local.head, deps.now()) ?? (await readShared(deps, { detached: true }));
  if (known && number > computeHeadLimit(known, deps.now())) {
    deps.log.warn('mainnet head ahead of the known one by more than the slots since; not kept', {
      blocksAhead: number - known.number,
    });
    return;
  }
  const head = { number, readAt: deps.now() };
  local.head = head;
  // A newer head another instance stored meanwhile stays.
  await callSharedStore(
    deps,
    (store) => store.set(KNOWN_HEAD_KEY, head, ENTRY_KEEP_MS, { plausibleUntil: deps.now() + CLOCK_SKEW_MS }),
    { detached: true },
  );
}

/**
 * The known head: the newer of this instance's and the shared store's, or null when there is none.
 * The store is asked until `deadlineAt` at the latest (the refresh's deadline).
 */
export async function recallMainnetHead(deps: Deps, deadlineAt?: number): Promise<KnownHead | null> {
  const local = usable(localHead(deps).head, deps.now());
  const shared = await readShared(deps, { deadlineAt });
  if (!local || !shared) return local ?? shared;
  return shared.readAt > local.readAt ? shared : local;
}

/**
 * The lowest LastBlock an honest explorer can report at `nowMs`: the known head, plus half the slots
 * since it was seen, less a minute's blocks; never below what the clock alone allows (the last resort,
 * see computeMainnetHeadFloor). Undefined when neither gives a bound.
 */
export function computeExplorerMinBlock(known: KnownHead | null, nowMs: number): number | undefined {
  const clockFloor = computeMainnetHeadFloor(nowMs);
  if (!known) return clockFloor;
  const slots = Math.floor(Math.max(0, nowMs - known.readAt) / SLOT_MS);
  const fromHead = known.number + Math.floor(slots * COUNTED_SLOT_SHARE) - EXPLORER_MAX_LAG_BLOCKS;
  return Math.max(fromHead, clockFloor ?? fromHead);
}

/** The highest head number possible at `nowMs` after `known`: a block per 12-s slot since, and the tolerance. */
export function computeHeadLimit(known: KnownHead, nowMs: number): number {
  return known.number + Math.ceil(Math.max(0, nowMs - known.readAt) / SLOT_MS) + AHEAD_TOLERANCE_BLOCKS;
}

function localHead(deps: Pick<AppDeps, 'state'>): { head: KnownHead | null } {
  return getState(deps, KNOWN_HEAD_KEY, () => ({ head: null as KnownHead | null }));
}

async function readShared(deps: Deps, options: SideCallOptions): Promise<KnownHead | null> {
  const record = await callSharedStore(deps, (store) => store.get(KNOWN_HEAD_KEY), options);
  const parsed = KnownHeadSchema.safeParse(record);
  return parsed.success ? usable(parsed.data, deps.now()) : null;
}

/** A head seen later than any instance's clock can be (a clock set back, a mistyped record) is no reference. */
function usable(head: KnownHead | null, now: number): KnownHead | null {
  return head && head.readAt <= now + CLOCK_SKEW_MS ? head : null;
}
