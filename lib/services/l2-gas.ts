import { z } from 'zod';
import type { AppDeps } from '../deps';
import { isSaneGasPriceGwei, L2_NETWORKS, type L2Network, type L2NetworkId } from '../l2/networks';
import type { OperatorFeeReading } from '../l2/operator-fee';
import { type NetworkFacts, type PresentedNetwork, presentNetwork, type TokenPrices } from '../l2/present';
import type { L2NetworkReading } from '../schemas/l2-gas';
import type { L2Snapshot } from '../store/history-writes';
import { REFRESH_LEAD, readThrough, type SharedKind } from '../store/shared-read';
import { weiToGwei } from '../units';
import { readL2Network } from '../upstream/l2-gas-price';
import { isSaneL1FeeWei } from '../upstream/op-l1-fee';
import { isSaneOperatorFeeWei } from '../upstream/op-operator-fee';
import { RpcPoolError } from '../upstream/rpc-errors';
import { getTokenPrice } from './eth-price';

/** SPEC.md 4.3: L2 gas refreshes every 60 seconds. */
export const L2_GAS_TTL_MS = 60_000;
/** A degraded answer (a network or a price missing) is retried sooner than a complete one. */
export const L2_GAS_DEGRADED_TTL_MS = 15_000;
/** A network's last good reading is served for at most this long after every provider failed. */
export const L2_LAST_GOOD_MAX_AGE_MS = 5 * 60_000;
export const L2_GAS_CACHE_KEY = 'l2-gas';

/** The per-network figures the snapshot job stores (SPEC.md 2.11, decision 15). */
export interface L2NetworkSnapshot {
  network: L2NetworkId;
  /** `live`: read just now; `last-good`: every provider failed, an older reading is served; else none. */
  status: NetworkFacts['status'];
  /** When the gas price was read upstream (epoch ms); null when unavailable. */
  fetchedAt: number | null;
  gasPriceGwei: number | null;
  executionGasCostUsd: number | null;
  l1DataFeeUsd: number | null;
  nativeUsd: number | null;
  /** Exact gas price and L1 data fee (of the representative transfer) in wei; null when unknown. */
  gasPriceWei: bigint | null;
  l1FeeWei: bigint | null;
  /** OP Stack: the operator fee as read with `l1FeeWei` (for other gas amounts: computeOperatorFeeWei). */
  operatorFee: OperatorFeeReading | null;
  /**
   * When `l1FeeWei` and `operatorFee` were read, if before the gas price (the oracle's last good
   * answer); else null.
   */
  l1FeeReadAt: number | null;
  /** Arbitrum: its L1 component of the representative transfer in wei (units x their base fee); else null. */
  l1ComponentWei: bigint | null;
  /**
   * True when the USD figures come from a last good (`stale-*`, up to 5 minutes old) price of the
   * network's native token (or of ETH, for an L1 fee) rather than a live or cached one.
   */
  priceStale: boolean;
}

/** One assembled answer: the served networks (SPEC order), their snapshot figures and its time. */
export interface L2GasResult {
  /** When the answer was assembled. */
  fetchedAt: number;
  /**
   * The time of its data: the oldest network reading served (a last good one keeps its own time), so
   * every figure is at least that fresh; the assembly time when no network has one. The citation and
   * Last-Modified state it, and a shared cache keeps the answer no later than 5 minutes after it.
   */
  updatedAt: number;
  networks: L2NetworkReading[];
  snapshots: L2NetworkSnapshot[];
  /** True when any network, oracle fee or price is missing or stale; such answers are cached briefly. */
  degraded: boolean;
}

// What a network's shared entry holds; validated on every read: the store is shared and may hold anything.
const wei = z.string().regex(/^\d+$/);
const StoredReadingSchema = z
  .object({
    gasPriceWei: wei,
    l1FeeWei: wei.nullable(),
    readAt: z.number().int().positive(),
    // Readings stored before the fee suggestions existed lack these: they read as unknown.
    baseFeeWei: wei.nullable().default(null),
    suggestedTipWei: wei.nullable().default(null),
    l1GasUnits: wei.nullable().default(null),
    // Readings stored before the NodeInterface's base fee was kept lack it: their L1 component reads as unpriced.
    l1GasBaseFeeWei: wei.nullable().default(null),
    // OP Stack: the operator fee, read with the L1 fee. Readings stored before it was read lack it: their
    // oracle fees read as incomplete until the entry is refreshed (within 15 s, as a degraded one).
    operatorFee: z.object({ transferFeeWei: wei, scalar: wei, constant: wei }).nullable().default(null),
    // When `l1FeeWei` (and `operatorFee`) were read, if before this reading: the oracle failed and its
    // last good answers were kept.
    l1FeeReadAt: z.number().int().positive().nullable().default(null),
  })
  .refine(
    (reading) =>
      reading.l1FeeReadAt === null || (reading.l1FeeWei !== null && reading.l1FeeReadAt <= reading.readAt),
    'an L1 fee read after its reading',
  );
type StoredReading = z.infer<typeof StoredReadingSchema>;

/**
 * The stored-reading schema of one network: a gas price in its sane range, the oracle fees in the
 * oracle's, the operator fee parameters in their types (uint32, uint64).
 */
function storedReadingSchemaOf(network: L2Network) {
  return StoredReadingSchema.refine(
    (reading) =>
      isSaneGasPriceGwei(network, weiToGwei(BigInt(reading.gasPriceWei))) &&
      (reading.l1FeeWei === null || isSaneL1FeeWei(BigInt(reading.l1FeeWei))) &&
      (reading.operatorFee === null ||
        (isSaneOperatorFeeWei(BigInt(reading.operatorFee.transferFeeWei)) &&
          BigInt(reading.operatorFee.scalar) < 1n << 32n &&
          BigInt(reading.operatorFee.constant) < 1n << 64n)),
    `reading outside the sane ${network.name} range`,
  );
}
const toWei = (value: string | null) => (value === null ? null : BigInt(value));
const fromWei = (value: bigint | null) => value?.toString() ?? null;
const toOperatorFee = (stored: StoredReading['operatorFee']): OperatorFeeReading | null =>
  stored && {
    transferFeeWei: BigInt(stored.transferFeeWei),
    params: { scalar: BigInt(stored.scalar), constant: BigInt(stored.constant) },
  };
const fromOperatorFee = (fee: OperatorFeeReading | null): StoredReading['operatorFee'] =>
  fee && {
    transferFeeWei: fee.transferFeeWei.toString(),
    scalar: fee.params.scalar.toString(),
    constant: fee.params.constant.toString(),
  };

/**
 * Returns the four L2 networks (SPEC.md 2.10), cached 60 s per process with concurrent callers
 * coalesced. The networks and the ETH and POL prices are read in parallel. It never throws: a network
 * whose providers all fail is served from its last good reading (at most 5 minutes old) or with null
 * numbers, and a missing price leaves the USD fields null while the gwei figures stay.
 */
export async function getL2Gas(deps: AppDeps, options: { notBefore?: number } = {}): Promise<L2GasResult> {
  const previous = deps.cache.peek<L2GasResult>(L2_GAS_CACHE_KEY);
  // The answer is assembled again once its oldest network reading is due for its shared refresh (so
  // the fleet refreshes while the entry is still fresh), and after 15 s when degraded.
  const oldest = previous ? Math.min(...previous.value.snapshots.map((s) => s.fetchedAt ?? 0)) : 0;
  const refreshAt = oldest + L2_GAS_TTL_MS * (1 - REFRESH_LEAD);
  const freshFor = previous ? refreshAt - previous.storedAt : L2_GAS_TTL_MS;
  const ttl = Math.min(previous?.value.degraded ? L2_GAS_DEGRADED_TTL_MS : L2_GAS_TTL_MS, freshFor);
  // A reading taken since `notBefore` (a snapshot's slot) is read here unless the cached answer
  // holds one, never joined to a load in flight: one begun for a request may serve the fleet's
  // entries from before it.
  if (options.notBefore !== undefined) {
    if (previous && oldest >= options.notBefore) return previous.value;
    deps.cache.delete(L2_GAS_CACHE_KEY);
    return loadL2Gas(deps, L2_NETWORKS, options);
  }
  return deps.cache.get(L2_GAS_CACHE_KEY, ttl, () => loadL2Gas(deps, L2_NETWORKS, options));
}

/** One row for the L2 history table, without its slot (the snapshot job assigns that). */
export type L2SnapshotRow = Omit<L2Snapshot, 'slotStart'>;

/**
 * Picks the rows the snapshot job may store from an answer: live readings with a live (or cached)
 * price only, since the history holds fresh samples (a last good reading is already stored) and its
 * USD columns are not nullable (SPEC 2.11 serves `execution_gas_cost_usd` as a number): a row priced
 * with a last good price would store minutes-old USD figures under the gas price's fresh read time.
 */
export function selectL2SnapshotRows(result: L2GasResult): L2SnapshotRow[] {
  const rows: L2SnapshotRow[] = [];
  for (const s of result.snapshots) {
    if (s.status !== 'live' || s.fetchedAt === null || s.gasPriceGwei === null) continue;
    if (s.executionGasCostUsd === null || s.nativeUsd === null || s.priceStale) continue;
    rows.push({
      network: s.network,
      readAt: s.fetchedAt,
      gasPriceGwei: s.gasPriceGwei,
      executionGasCostUsd: s.executionGasCostUsd,
      l1DataFeeUsd: s.l1DataFeeUsd,
      nativeUsd: s.nativeUsd,
    });
  }
  return rows;
}

async function loadL2Gas(
  deps: AppDeps,
  networks: readonly L2Network[],
  options: { notBefore?: number },
): Promise<L2GasResult> {
  const [prices, ...facts] = await Promise.all([
    readPrices(deps, networks),
    ...networks.map((network) => readFacts(deps, network, options)),
  ]);
  const now = deps.now();
  const presented = networks.map((network, i) =>
    presentNetwork(network, facts[i] as NetworkFacts, prices, now),
  );
  // Every figure is at least as fresh as `updatedAt`: a carried L1 fee counts with its own time.
  const readAts = presented.flatMap((p) => [p.readAt, p.l1FeeReadAt].filter((at) => at !== null));
  return {
    fetchedAt: now,
    updatedAt: readAts.length > 0 ? Math.min(...readAts) : now,
    networks: presented.map((p) => p.reading),
    snapshots: presented.map((p, i) => toSnapshot(p, usesStalePrice(networks[i] as L2Network, prices))),
    // A last good price (`stale-*`) degrades the answer too: its USD figures are read again sooner.
    degraded:
      prices.stale.ETH ||
      prices.stale.POL ||
      presented.some(
        (p) =>
          p.status !== 'live' ||
          p.oracleFeesMissing ||
          p.l1FeeReadAt !== null ||
          p.reading.executionGasCostUsd === null,
      ),
  };
}

type ReadPrices = TokenPrices & { stale: Record<keyof TokenPrices, boolean> };

/** The token prices, and which of them is a last good value rather than a live or cached one. */
async function readPrices(deps: AppDeps, networks: readonly L2Network[]): Promise<ReadPrices> {
  const needsPol = networks.some((n) => n.nativeToken === 'POL');
  const [eth, pol] = await Promise.all([
    getTokenPrice(deps, 'ETH'),
    needsPol ? getTokenPrice(deps, 'POL') : Promise.resolve(null),
  ]);
  const isStale = (price: { source: string } | null) => price?.source.startsWith('stale-') ?? false;
  return { ETH: eth.usd, POL: pol?.usd ?? null, stale: { ETH: isStale(eth), POL: isStale(pol) } };
}

/** Whether a network's USD figures use a last good price: its native token's, or ETH's for its L1 fee. */
function usesStalePrice(network: L2Network, prices: ReadPrices): boolean {
  return prices.stale[network.nativeToken] || (network.hasL1DataFee && prices.stale.ETH);
}

/** A network as a shared data kind: its gas price, fee suggestion (and OP Stack oracle fees, Arbitrum L1 gas) from its providers. */
function networkKind(deps: AppDeps, network: L2Network): SharedKind<StoredReading> {
  return {
    key: `l2-gas:${network.id}`,
    schema: storedReadingSchemaOf(network),
    freshMs: L2_GAS_TTL_MS,
    // An OP Stack reading without live oracle fees is retried as soon as a degraded answer is.
    freshMsOf: (v) =>
      network.hasL1DataFee && (v.l1FeeWei === null || v.operatorFee === null || v.l1FeeReadAt !== null)
        ? L2_GAS_DEGRADED_TTL_MS
        : L2_GAS_TTL_MS,
    async read(previous) {
      try {
        const live = await readL2Network(deps, network);
        // The oracle alone failed: its last good fees (at most 5 minutes old) stand, with their time.
        const earlier =
          network.hasL1DataFee && live.l1FeeWei === null ? lastGoodOracleFees(previous, live.readAt) : null;
        const value = {
          gasPriceWei: live.gasPriceWei.toString(),
          l1FeeWei: earlier ? earlier.l1FeeWei : fromWei(live.l1FeeWei),
          operatorFee: earlier ? earlier.operatorFee : fromOperatorFee(live.operatorFee),
          readAt: live.readAt,
          baseFeeWei: fromWei(live.baseFeeWei),
          suggestedTipWei: fromWei(live.suggestedTipWei),
          l1GasUnits: fromWei(live.l1GasUnits),
          l1GasBaseFeeWei: fromWei(live.l1GasBaseFeeWei),
          l1FeeReadAt: earlier ? earlier.readAt : null,
        };
        return { value, readAt: live.readAt };
      } catch (error) {
        // Only labels and failure kinds are logged: other error texts may embed a provider URL and its key.
        const failures = error instanceof RpcPoolError ? error.failures : [{ kind: 'unexpected' }];
        deps.log.warn('l2 network unavailable live', { network: network.id, failures });
        throw error;
      }
    },
  };
}

/**
 * A stored reading's oracle fees (L1 data fee and operator fee, both: a wallet pays both) and when they
 * were read, if that was at most 5 minutes before `now`.
 */
function lastGoodOracleFees(
  reading: StoredReading | null,
  now: number,
): { l1FeeWei: string; operatorFee: NonNullable<StoredReading['operatorFee']>; readAt: number } | null {
  if (!reading || reading.l1FeeWei === null || reading.operatorFee === null) return null;
  const readAt = reading.l1FeeReadAt ?? reading.readAt;
  const age = now - readAt;
  return age >= 0 && age <= L2_LAST_GOOD_MAX_AGE_MS
    ? { l1FeeWei: reading.l1FeeWei, operatorFee: reading.operatorFee, readAt }
    : null;
}

/** One network through its shared entry: fresh, else its last good reading (≤ 5 min), else nothing; never throws. */
async function readFacts(
  deps: AppDeps,
  network: L2Network,
  options: { notBefore?: number },
): Promise<NetworkFacts> {
  const shared = await readThrough(deps, networkKind(deps, network), options);
  const reading = shared.value;
  const age = reading ? deps.now() - reading.readAt : Number.POSITIVE_INFINITY;
  if (!reading || age > L2_LAST_GOOD_MAX_AGE_MS) {
    return {
      status: 'unavailable',
      gasPriceWei: null,
      l1FeeWei: null,
      operatorFee: null,
      readAt: null,
      baseFeeWei: null,
      suggestedTipWei: null,
      l1GasUnits: null,
      l1GasBaseFeeWei: null,
      l1FeeReadAt: null,
    };
  }
  // Oracle fees kept from an earlier reading are served while they are at most 5 minutes old.
  const l1FeeReadAt = reading.l1FeeReadAt;
  const l1FeeExpired = l1FeeReadAt !== null && deps.now() - l1FeeReadAt > L2_LAST_GOOD_MAX_AGE_MS;
  return {
    // A failed refresh makes the kept reading a last good one, even while it is younger than 60 s.
    status: age < L2_GAS_TTL_MS && !shared.failure ? 'live' : 'last-good',
    gasPriceWei: BigInt(reading.gasPriceWei),
    l1FeeWei: l1FeeExpired ? null : toWei(reading.l1FeeWei),
    operatorFee: l1FeeExpired ? null : toOperatorFee(reading.operatorFee),
    l1FeeReadAt: l1FeeExpired ? null : l1FeeReadAt,
    readAt: reading.readAt,
    baseFeeWei: toWei(reading.baseFeeWei),
    suggestedTipWei: toWei(reading.suggestedTipWei),
    l1GasUnits: toWei(reading.l1GasUnits),
    l1GasBaseFeeWei: toWei(reading.l1GasBaseFeeWei),
  };
}

function toSnapshot(p: PresentedNetwork, priceStale: boolean): L2NetworkSnapshot {
  return {
    network: p.reading.id,
    status: p.status,
    fetchedAt: p.readAt,
    gasPriceGwei: p.reading.gasPriceGwei,
    executionGasCostUsd: p.reading.executionGasCostUsd,
    // The history holds fresh samples: an L1 fee kept from an earlier reading is not one. (It has no
    // operator fee column: SPEC 2.11 serves the execution cost alone.)
    l1DataFeeUsd: p.l1FeeReadAt === null ? p.reading.estimatedL1DataFeeUsd : null,
    nativeUsd: p.reading.nativeUsd,
    gasPriceWei: p.gasPriceWei,
    l1FeeWei: p.l1FeeWei,
    operatorFee: p.operatorFee,
    l1FeeReadAt: p.l1FeeReadAt,
    l1ComponentWei: p.l1ComponentWei,
    priceStale,
  };
}
