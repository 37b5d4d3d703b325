import { z } from 'zod';
import { type AppDeps, getState } from '../deps';
import { GasUnavailableError } from '../errors';
import { MAX_SANE_GWEI } from '../oracle/sanity';
import { WalletGasFieldsSchema } from '../schemas/wallet-gas';
import { readThrough, type SharedKind, secondsUntilRetry } from '../store/shared-read';
import { readMainnetGasFromRpc } from '../upstream/rpc-mainnet-gas';
import { DEFAULT_HEDGE_DELAY_MS } from '../upstream/rpc-pool';
import { ageReading } from './aged-reading';
import { ExplorerBlockTooOld, type ExplorerGasReading, readExplorerGas } from './explorer-gas';
import { rememberMainnetHead } from './mainnet-known-head';
import { deriveExplorerWalletFields, rankBaseFee, toWalletFields } from './wallet-fields';

const saneGwei = z.number().positive().max(MAX_SANE_GWEI);
/**
 * The current mainnet reading every consumer (REST, dashboard, snapshot job, MCP) uses. Also what the
 * shared read-through entry holds, so it is validated when read back.
 */
const CurrentGasReadingSchema = z.object({
  low: saneGwei,
  average: saneGwei,
  high: saneGwei,
  baseFee: saneGwei,
  blockNumber: z.number().int().positive(),
  /** Provider label, `etherscan`, or `stale:<label>` for a last good reading. */
  source: z.string().min(1),
  /** ISO-8601 time the reading was taken upstream. */
  updatedAt: z.iso.datetime(),
  /**
   * The reading's block time (Unix seconds): an RPC head's own; for the explorer the earlier of its
   * block's own time (from its proxy) and the latest that block can have (readExplorerGas). Absent in
   * entries kept by an older release. Not served: it ages the wallet fields (ageReading).
   */
  blockTimestamp: z.number().int().positive().optional(),
  ...WalletGasFieldsSchema.shape,
  /** Set only on a reading as served when aged (ageReading). */
  walletFeesNote: z.string().nullable().optional(),
});
export type CurrentGasReading = z.infer<typeof CurrentGasReadingSchema>;

export const CURRENT_GAS_TTL_MS = 30_000;
/** The shared entry's key; every instance reads it, and one at a time refreshes it. */
export const CURRENT_GAS_LAST_GOOD_KEY = 'current-gas:mainnet';
/** A last good reading older than this is not served (SPEC.md decision 7). */
export const MAX_STALE_MS = 5 * 60_000;
/**
 * How long callers are told to wait when no reading exists and no failure on record says when the next
 * attempt comes: about one refresh cadence. With one (always, for a 503 of a request), the hint is the
 * time until then instead (secondsUntilRetry).
 */
export const RETRY_AFTER_SECONDS = 30;
export const STALE_PREFIX = 'stale:';

type GasDeps = Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state' | 'lastGood' | 'withDb'>;

/**
 * Thrown by the live read when neither the RPC providers nor the explorer answered live. `fallback`:
 * the explorer's reading of a block 72 s to 5 minutes old by its own time, dated by that block, which
 * the failed refresh keeps as the last good reading when it is newer than the entry's (fallbackOf).
 */
class MainnetGasUnavailable extends Error {
  override name = 'MainnetGasUnavailable';
  constructor(readonly fallback: { value: CurrentGasReading; readAt: number } | null = null) {
    super('no mainnet gas upstream answered');
  }
}

/**
 * Returns the current mainnet tiers through the shared read-through entry (lib/store/shared-read.ts):
 * at most one upstream read per 30 s for the whole fleet while Redis is up, one per instance when it
 * is not. When the last refresh failed, the last good reading (at most 5 minutes old; the explorer's
 * of an old block when that is newer, see readLiveUnranked) is served as `stale:<label>`. `notBefore`
 * asks for a reading taken since then.
 * @throws GasUnavailableError when no upstream answers and no reading of the last 5 minutes exists.
 */
export async function getCurrentGas(
  deps: GasDeps,
  options: { notBefore?: number } = {},
): Promise<CurrentGasReading> {
  return (await readCurrentGas(deps, options)).reading;
}

/** A reading as getCurrentGas serves it, and when a newer one can first be served here. */
export interface ServedGasReading {
  reading: CurrentGasReading;
  /**
   * Epoch ms, on this instance's clock: the end of the reading's 30-s cadence (the fleet refreshes the
   * entry from 25 s on, and this instance looks at it again about then), or, after a failed refresh, when
   * this instance next looks for its retry (the fleet's back-off: SharedReading's `failure.retryAt`).
   */
  nextReadingAt: number;
}

/** getCurrentGas, with when the next reading comes (a caller told to ask again then: secondsUntilRetry). */
export async function readCurrentGas(
  deps: GasDeps,
  options: { notBefore?: number } = {},
): Promise<ServedGasReading> {
  const shared = await readThrough(deps, mainnetGasKind(deps), options);
  const age = shared.readAt === null ? Number.POSITIVE_INFINITY : deps.now() - shared.readAt;
  if (shared.value && shared.readAt !== null) {
    const nextReadingAt = shared.failure?.retryAt ?? shared.readAt + CURRENT_GAS_TTL_MS;
    if (age < CURRENT_GAS_TTL_MS && !shared.failure) return { reading: shared.value, nextReadingAt };
    if (age <= MAX_STALE_MS) {
      if (shared.failure?.attempted) deps.log.warn('serving last good mainnet gas', { ageMs: age });
      return { reading: ageReading(staleCopyOf(shared.value), deps.now(), true), nextReadingAt };
    }
  }
  // Asking again can first work when the failed refresh is tried again (the fleet's back-off, or this
  // instance's own without the store). Until 2026-11-28 every 503 said 30 s, whether that was 5 s or
  // a minute away.
  throw gasUnavailable(
    shared.failure ? secondsUntilRetry(shared.failure.retryAt, deps.now()) : RETRY_AFTER_SECONDS,
  );
}

/** The last good reading labelled `stale:`, one copy per reading (so ageReading can reuse its aged copy). */
function staleCopyOf(reading: CurrentGasReading): CurrentGasReading {
  let copy = staleCopies.get(reading);
  if (!copy) {
    copy = { ...reading, source: `${STALE_PREFIX}${reading.source}` };
    staleCopies.set(reading, copy);
  }
  return copy;
}
const staleCopies = new WeakMap<CurrentGasReading, CurrentGasReading>();

/**
 * A reading as served at `nowMs` (ageReading): aged when it is a last good one (`stale:`) or served
 * past its 30-s live window (the reading a cached forecast was made from), else as it is.
 */
export function serveReading(reading: CurrentGasReading, nowMs: number): CurrentGasReading {
  const aged =
    reading.source.startsWith(STALE_PREFIX) || nowMs - Date.parse(reading.updatedAt) >= CURRENT_GAS_TTL_MS;
  return ageReading(reading, nowMs, aged);
}

/**
 * The error every mainnet-gas read throws when it has nothing to serve, telling callers to ask again
 * after `retryAfterSeconds` (also the 503's documented example, with the default).
 */
export const gasUnavailable = (retryAfterSeconds = RETRY_AFTER_SECONDS) =>
  new GasUnavailableError(
    'No mainnet gas upstream answered and no reading of the last 5 minutes is available.',
    retryAfterSeconds,
  );

/** Mainnet gas as a shared data kind: RPC providers (hedged failover), then Etherscan. */
function mainnetGasKind(deps: GasDeps): SharedKind<CurrentGasReading> {
  return {
    key: CURRENT_GAS_LAST_GOOD_KEY,
    schema: CurrentGasReadingSchema,
    freshMs: CURRENT_GAS_TTL_MS,
    async read(_previous, deadlineAt) {
      const read = await readLive(deps, deadlineAt);
      if (!read) throw new MainnetGasUnavailable();
      const reading = { value: read.reading, readAt: Date.parse(read.reading.updatedAt) };
      // The explorer's old block is no live reading: the refresh failed (the fleet backs off as after
      // any failure, and no slot stores it), but the reading stands in as the last good one.
      if (!read.live) throw new MainnetGasUnavailable(reading);
      return reading;
    },
    fallbackOf: (error) => (error instanceof MainnetGasUnavailable ? error.fallback : null),
  };
}

/**
 * The first live reading (RPC providers, else the explorer) with its base fee ranked; null when both
 * fail, and `live: false` for the explorer's reading of a block 72 s to 5 minutes old. Over by
 * `deadlineAt` (the refresh's, see SharedKind.read): the providers have their usual deadline
 * (UPSTREAM_TIMEOUT_MS and the hedge delay) within it; the explorer, after them, the rest of
 * it up to its own budget; the rank what is left then, up to its own 1.5 s (else null). Until
 * 2026-11-28 each step took its full budget whatever the others had taken, and a refresh whose every
 * provider hung could outlast its lease.
 */
async function readLive(
  deps: GasDeps,
  deadlineAt: number,
): Promise<{ reading: CurrentGasReading; live: boolean } | null> {
  const read = await readLiveUnranked(deps, deadlineAt);
  if (!read) return null;
  const { reading, live } = read;
  const baseFeePercentile7d = await rankBaseFee(deps, reading.baseFee, deadlineAt);
  const blobFee = reading.nextBlobBaseFee ?? reading.blobBaseFee;
  const maxBlobsPerBlock = recallMaxBlobs(deps, blobFee, reading.maxBlobsPerBlock);
  return { reading: { ...reading, baseFeePercentile7d, maxBlobsPerBlock }, live };
}

/**
 * The per-block blob maximum can only be derived from a block that carried blobs; when the newest did
 * not, the last one this process derived (at most an hour old: it changes only at forks) stands in.
 */
function recallMaxBlobs(deps: GasDeps, blobFee: number | null, derived: number | null): number | null {
  const memo = getState(deps, 'mainnet-max-blobs', () => ({ value: null as number | null, at: 0 }));
  if (derived !== null) {
    memo.value = derived;
    memo.at = deps.now();
    return derived;
  }
  if (blobFee === null || deps.now() - memo.at > 60 * 60_000) return null;
  return memo.value;
}

async function readLiveUnranked(
  deps: GasDeps,
  deadlineAt: number,
): Promise<{ reading: Omit<CurrentGasReading, 'baseFeePercentile7d'>; live: boolean } | null> {
  try {
    const poolDeadlineMs = deps.config.upstreamTimeoutMs + DEFAULT_HEDGE_DELAY_MS;
    const rpc = await readMainnetGasFromRpc(deps, {
      deadlineMs: Math.max(1, Math.min(poolDeadlineMs, deadlineAt - deps.now())),
    });
    // Off the refresh's path: a slow store must not hold the reading, nor cost it the shared entry's
    // write (the record never throws; a write that fails or times out is logged by callSharedStore,
    // and, as nobody waits for it, does not send this instance off the store).
    void rememberMainnetHead(deps, rpc.blockNumber);
    const { low, average, high, baseFee, blockNumber, blockTimestamp, source } = rpc;
    const updatedAt = new Date(deps.now()).toISOString();
    const reading = {
      ...{ low, average, high, baseFee, blockNumber, blockTimestamp, source, updatedAt },
      ...toWalletFields(rpc),
    };
    return { reading, live: true };
  } catch (error) {
    deps.log.warn('every mainnet rpc provider failed; trying etherscan', { error: safeMessage(error) });
  }
  try {
    const explorer = await readExplorerGas(deps, deadlineAt);
    return { reading: fromExplorer(explorer, explorer.readAt), live: true };
  } catch (error) {
    deps.log.warn('etherscan backstop failed', { error: safeMessage(error) });
    // Refused as stale by its block's own time, yet within the 5 minutes a last good reading is served
    // (SPEC.md decision 7): kept, dated by that block, so it is never served as newer than the block,
    // nor once the block is over 5 minutes old. Until 2026-11-28 it was dropped, and with no last good
    // reading newer than its block the answer was 503.
    if (error instanceof ExplorerBlockTooOld) {
      const blockMs = error.reading.blockTimestamp * 1000;
      if (deps.now() - blockMs <= MAX_STALE_MS)
        return { reading: fromExplorer(error.reading, blockMs), live: false };
    }
    return null;
  }
}

/** The explorer's reading as a mainnet one, `updatedAt` at `takenAt` (epoch ms). */
function fromExplorer(
  { gasUsedRatios, readAt: _readAt, ...explorer }: ExplorerGasReading,
  takenAt: number,
): Omit<CurrentGasReading, 'baseFeePercentile7d'> {
  const updatedAt = new Date(takenAt).toISOString();
  return {
    ...{ ...explorer, updatedAt },
    ...deriveExplorerWalletFields({ ...explorer, gasUsedRatios }),
  };
}

/** Our own error messages name labels and kinds only; anything else is reduced to its type. */
function safeMessage(error: unknown): string {
  if (error instanceof Error && (error.name === 'RpcPoolError' || error.name === 'EtherscanError'))
    return error.message;
  return error instanceof Error ? error.name : 'unknown error';
}
