import { z } from 'zod';
import type { AppDeps } from '../deps';
import { GasUnavailableError } from '../errors';
import { readLastGood, writeLastGood } from '../store/last-good';
import { readEtherscanGas } from '../upstream/etherscan';
import { getMainnetBestBlock, readMainnetGasFromRpc } from '../upstream/rpc-mainnet-gas';

/** How far (in blocks, about a minute) the explorer may trail the best block RPC providers served. */
const EXPLORER_MAX_LAG_BLOCKS = 5;

/**
 * The current mainnet reading every consumer (REST, dashboard, snapshot job, MCP) uses. Also what the
 * shared last-good store holds, so it is validated when read back.
 */
const CurrentGasReadingSchema = z.object({
  low: z.number().positive().finite(),
  average: z.number().positive().finite(),
  high: z.number().positive().finite(),
  baseFee: z.number().positive().finite(),
  blockNumber: z.number().int().positive(),
  /** Provider label, `etherscan`, or `stale:<label>` for a last good reading. */
  source: z.string().min(1),
  /** ISO-8601 time the reading was taken upstream. */
  updatedAt: z.iso.datetime(),
});
export type CurrentGasReading = z.infer<typeof CurrentGasReadingSchema>;

export const CURRENT_GAS_CACHE_KEY = 'current-gas';
export const CURRENT_GAS_TTL_MS = 30_000;
/** The shared last-good key; every instance reads and writes it. */
export const CURRENT_GAS_LAST_GOOD_KEY = 'current-gas:mainnet';
/** A last good reading older than this is not served (SPEC.md decision 7). */
export const MAX_STALE_MS = 5 * 60_000;
/** How long callers are told to wait when no reading exists: about one refresh cadence. */
export const RETRY_AFTER_SECONDS = 30;
export const STALE_PREFIX = 'stale:';

type GasDeps = Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state' | 'cache' | 'lastGood'>;

/**
 * Returns the current mainnet tiers, at most one upstream read per 30 s per process however many
 * callers ask (coalescing cache).
 * @throws GasUnavailableError when no upstream answers and no reading of the last 5 minutes exists.
 */
export async function getCurrentGas(deps: GasDeps): Promise<CurrentGasReading> {
  const reading = await deps.cache.get(CURRENT_GAS_CACHE_KEY, CURRENT_GAS_TTL_MS, () => readCurrentGas(deps));
  // A cached stale reading must not outlive the 5-minute promise while it sits in the cache.
  if (reading.source.startsWith(STALE_PREFIX) && deps.now() - Date.parse(reading.updatedAt) > MAX_STALE_MS) {
    deps.cache.delete(CURRENT_GAS_CACHE_KEY);
    return deps.cache.get(CURRENT_GAS_CACHE_KEY, CURRENT_GAS_TTL_MS, () => readCurrentGas(deps));
  }
  return reading;
}

/**
 * Reads the tiers without the cache: RPC providers (hedged failover), then Etherscan, then the last
 * good reading if at most 5 minutes old. A live reading is stored as the new last good one.
 * @throws GasUnavailableError when none of these gives a reading.
 */
export async function readCurrentGas(deps: GasDeps): Promise<CurrentGasReading> {
  const live = await readLive(deps);
  if (live) {
    await writeLastGood(deps, CURRENT_GAS_LAST_GOOD_KEY, live, Date.parse(live.updatedAt));
    return live;
  }
  // Only live readings are stored, so the stored source never carries the stale prefix already.
  const stored = await readLastGood(deps, CURRENT_GAS_LAST_GOOD_KEY, CurrentGasReadingSchema);
  if (stored && deps.now() - stored.storedAt <= MAX_STALE_MS) {
    deps.log.warn('serving last good mainnet gas', { ageMs: deps.now() - stored.storedAt });
    return { ...stored.value, source: `${STALE_PREFIX}${stored.value.source}` };
  }
  throw new GasUnavailableError(
    'No mainnet gas upstream answered and no reading of the last 5 minutes is available.',
    RETRY_AFTER_SECONDS,
  );
}

/** The first live reading: RPC providers, else the explorer; null when both fail. */
async function readLive(deps: GasDeps): Promise<CurrentGasReading | null> {
  try {
    const { blockTimestamp: _, ...rpc } = await readMainnetGasFromRpc(deps);
    return { ...rpc, updatedAt: new Date(deps.now()).toISOString() };
  } catch (error) {
    deps.log.warn('every mainnet rpc provider failed; trying etherscan', { error: safeMessage(error) });
  }
  try {
    const best = getMainnetBestBlock(deps);
    const minBlock = best === undefined ? undefined : best - EXPLORER_MAX_LAG_BLOCKS;
    const explorer = await readEtherscanGas(deps, minBlock === undefined ? {} : { minBlock });
    return { ...explorer, updatedAt: new Date(deps.now()).toISOString() };
  } catch (error) {
    deps.log.warn('etherscan backstop failed', { error: safeMessage(error) });
    return null;
  }
}

/** Our own error messages name labels and kinds only; anything else is reduced to its type. */
function safeMessage(error: unknown): string {
  if (error instanceof Error && (error.name === 'RpcPoolError' || error.name === 'EtherscanError'))
    return error.message;
  return error instanceof Error ? error.name : 'unknown error';
}
