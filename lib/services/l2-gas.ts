import type { AppDeps } from '../deps';
import { L2_NETWORKS, type L2Network, type L2NetworkId } from '../l2/networks';
import type { OperatorFeeReading } from '../l2/operator-fee';
import { type NetworkFacts, type PresentedNetwork, presentNetwork, type TokenPrices } from '../l2/present';
import type { L2NetworkReading } from '../schemas/l2-gas';
import type { L2Snapshot } from '../store/history-writes';
import { REFRESH_LEAD, secondsUntilRetry } from '../store/shared-read';
import { RETRY_AFTER_SECONDS } from './current-gas';
import { getTokenPrice } from './eth-price';
import {
  L2_GAS_DEGRADED_TTL_MS,
  L2_GAS_TTL_MS,
  L2_LAST_GOOD_MAX_AGE_MS,
  readFacts,
} from './l2-network-entry';

export { L2_GAS_DEGRADED_TTL_MS, L2_GAS_TTL_MS, L2_LAST_GOOD_MAX_AGE_MS } from './l2-network-entry';
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
  /** When `l1FeeWei` was read, if before the gas price (the oracle's last good answer); else null. */
  l1FeeReadAt: number | null;
  /** OP Stack: the operator fee as read (for other gas amounts: computeOperatorFeeWei); null when unknown. */
  operatorFee: OperatorFeeReading | null;
  /** When `operatorFee` was read, if before the gas price (the oracle's last good answer); else null. */
  operatorFeeReadAt: number | null;
  /** Arbitrum: its L1 component of the representative transfer in wei (units x their base fee); else null. */
  l1ComponentWei: bigint | null;
  /** When `l1ComponentWei` was read, if before the gas price (the NodeInterface's last good answer); else null. */
  l1ComponentReadAt: number | null;
  /**
   * True when the USD figures come from a last good (`stale-*`, up to 5 minutes old) price of the
   * network's native token (or of ETH, for an L1 fee) rather than a live or cached one.
   */
  priceStale: boolean;
  /** When the network's failed refresh is tried again (epoch ms); null when no failure is on record. */
  retryAt: number | null;
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
  /**
   * True when any network, L1 fee (or Arbitrum L1 component) or price is missing or stale; such
   * answers are cached briefly. Not
   * for the operator fee alone: its entry keeps the normal cadence, so assembling sooner finds the same.
   */
  degraded: boolean;
}

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
  // An oracle fee (or Arbitrum L1 component) kept from an earlier reading is served for at most 5
  // minutes after it was read: the answer is assembled again once the first it serves is past that
  // (readFacts then leaves it out).
  const keptAts = previous
    ? previous.value.snapshots.flatMap((s) =>
        [s.l1FeeReadAt, s.operatorFeeReadAt, s.l1ComponentReadAt].filter((at) => at !== null),
      )
    : [];
  const keptFor =
    previous && keptAts.length > 0
      ? Math.min(...keptAts) + L2_LAST_GOOD_MAX_AGE_MS + 1 - previous.storedAt
      : L2_GAS_TTL_MS;
  const ttl = Math.min(previous?.value.degraded ? L2_GAS_DEGRADED_TTL_MS : L2_GAS_TTL_MS, freshFor, keptFor);
  // A reading taken since `notBefore` (a snapshot's slot) is read here unless the cached answer
  // holds one of every network, never joined to a load in flight: one begun for a request may serve
  // the fleet's entries from before it. A network whose refresh failed (a failure on record) holds
  // none, though its last good reading may be dated since then (shared-read's readSince): until later
  // on 2026-11-28 that answer was served, and the slot skipped the network as `last-good` instead of
  // waiting out its back-off (15 s at most) and reading it again.
  if (options.notBefore !== undefined) {
    const since = options.notBefore;
    const readSince = (s: L2NetworkSnapshot) => s.retryAt === null && (s.fetchedAt ?? 0) >= since;
    if (previous?.value.snapshots.every(readSince)) return previous.value;
    deps.cache.delete(L2_GAS_CACHE_KEY);
    return loadL2Gas(deps, L2_NETWORKS, options);
  }
  return deps.cache.get(L2_GAS_CACHE_KEY, ttl, () => loadL2Gas(deps, L2_NETWORKS, options));
}

/**
 * How long a caller told a network is unavailable should wait before asking again: until the network's
 * failed refresh is tried again (secondsUntilRetry, 1 to 60 s), about one refresh cadence (30 s) with
 * no failure on record. Until 2026-11-28 the MCP tools gave no time (an L2 estimate said "retry
 * shortly", get_l2_gas nothing).
 */
export function l2RetryAfterSeconds(snapshot: Pick<L2NetworkSnapshot, 'retryAt'>, now: number): number {
  return snapshot.retryAt === null ? RETRY_AFTER_SECONDS : secondsUntilRetry(snapshot.retryAt, now);
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
  // Every figure is at least as fresh as `updatedAt`: a carried oracle fee or L1 component counts with its own time.
  const readAts = presented.flatMap((p) =>
    [p.readAt, p.l1FeeReadAt, p.operatorFeeReadAt, p.l1ComponentReadAt].filter((at) => at !== null),
  );
  return {
    fetchedAt: now,
    updatedAt: readAts.length > 0 ? Math.min(...readAts) : now,
    networks: presented.map((p) => p.reading),
    snapshots: presented.map((p, i) => toSnapshot(p, usesStalePrice(networks[i] as L2Network, prices))),
    // A last good price (`stale-*`) degrades the answer too: its USD figures are read again sooner. So
    // does Arbitrum's L1 component missing or kept, as the L1 fee (its entry is read again sooner too).
    // A missing or kept operator fee alone does not: its entry is not read again sooner (see
    // l2-network-entry), and a kept one is dropped on time through getL2Gas's TTL.
    degraded:
      prices.stale.ETH ||
      prices.stale.POL ||
      presented.some(
        (p) =>
          p.status !== 'live' ||
          p.l1FeeMissing ||
          p.l1FeeReadAt !== null ||
          p.l1ComponentMissing ||
          p.l1ComponentReadAt !== null ||
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
    l1FeeReadAt: p.l1FeeReadAt,
    operatorFee: p.operatorFee,
    operatorFeeReadAt: p.operatorFeeReadAt,
    l1ComponentWei: p.l1ComponentWei,
    l1ComponentReadAt: p.l1ComponentReadAt,
    priceStale,
    retryAt: p.retryAt,
  };
}
