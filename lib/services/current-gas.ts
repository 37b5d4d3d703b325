import { z } from 'zod';
import type { AppDeps } from '../deps';
import { GasUnavailableError } from '../errors';
import { readThrough, type SharedKind } from '../store/shared-read';
import { readEtherscanGas } from '../upstream/etherscan';
import { getMainnetBestBlock, readMainnetGasFromRpc } from '../upstream/rpc-mainnet-gas';

/** How far (in blocks, about a minute) the explorer may trail the best block RPC providers served. */
const EXPLORER_MAX_LAG_BLOCKS = 5;

/**
 * The current mainnet reading every consumer (REST, dashboard, snapshot job, MCP) uses. Also what the
 * shared read-through entry holds, so it is validated when read back.
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

export const CURRENT_GAS_TTL_MS = 30_000;
/** The shared entry's key; every instance reads it, and one at a time refreshes it. */
export const CURRENT_GAS_LAST_GOOD_KEY = 'current-gas:mainnet';
/** A last good reading older than this is not served (SPEC.md decision 7). */
export const MAX_STALE_MS = 5 * 60_000;
/** How long callers are told to wait when no reading exists: about one refresh cadence. */
export const RETRY_AFTER_SECONDS = 30;
export const STALE_PREFIX = 'stale:';

type GasDeps = Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state' | 'lastGood'>;

/** Thrown by the live read when neither the RPC providers nor the explorer answered. */
class MainnetGasUnavailable extends Error {
  override name = 'MainnetGasUnavailable';
}

/**
 * Returns the current mainnet tiers through the shared read-through entry (lib/store/shared-read.ts):
 * at most one upstream read per 30 s for the whole fleet while Redis is up, one per instance when it
 * is not. When the last refresh failed, the last good reading (at most 5 minutes old) is served as
 * `stale:<label>`. `notBefore` asks for a reading taken since then.
 * @throws GasUnavailableError when no upstream answers and no reading of the last 5 minutes exists.
 */
export async function getCurrentGas(
  deps: GasDeps,
  options: { notBefore?: number } = {},
): Promise<CurrentGasReading> {
  const shared = await readThrough(deps, mainnetGasKind(deps), options);
  const age = shared.readAt === null ? Number.POSITIVE_INFINITY : deps.now() - shared.readAt;
  if (shared.value && age < CURRENT_GAS_TTL_MS && !shared.failure) return shared.value;
  if (shared.value && age <= MAX_STALE_MS) {
    if (shared.failure?.attempted) deps.log.warn('serving last good mainnet gas', { ageMs: age });
    return { ...shared.value, source: `${STALE_PREFIX}${shared.value.source}` };
  }
  throw new GasUnavailableError(
    'No mainnet gas upstream answered and no reading of the last 5 minutes is available.',
    RETRY_AFTER_SECONDS,
  );
}

/** Mainnet gas as a shared data kind: RPC providers (hedged failover), then Etherscan. */
function mainnetGasKind(deps: GasDeps): SharedKind<CurrentGasReading> {
  return {
    key: CURRENT_GAS_LAST_GOOD_KEY,
    schema: CurrentGasReadingSchema,
    freshMs: CURRENT_GAS_TTL_MS,
    async read() {
      const live = await readLive(deps);
      if (!live) throw new MainnetGasUnavailable('no mainnet gas upstream answered');
      return { value: live, readAt: Date.parse(live.updatedAt) };
    },
  };
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
