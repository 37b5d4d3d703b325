import { z } from 'zod';
import type { AppDeps } from '../deps';
import { isSaneGasPriceGwei, type L2Network } from '../l2/networks';
import type { OperatorFeeReading } from '../l2/operator-fee';
import type { NetworkFacts } from '../l2/present';
import { readThrough, type SharedKind } from '../store/shared-read';
import { weiToGwei } from '../units';
import { readL2Network } from '../upstream/l2-gas-price';
import { isSaneL1FeeWei } from '../upstream/op-l1-fee';
import { isSaneOperatorFeeWei } from '../upstream/op-operator-fee';
import { RpcPoolError } from '../upstream/rpc-errors';

/*
 * One L2 network's shared entry (the fleet-wide read-through of lib/store/shared-read): what it
 * stores, how it is read live, and the facts it serves (fresh, else its last good reading).
 */

/** SPEC.md 4.3: L2 gas refreshes every 60 seconds. */
export const L2_GAS_TTL_MS = 60_000;
/**
 * A degraded answer (a network, an L1 fee, Arbitrum's L1 component or a price missing or kept) is
 * retried sooner than a complete one.
 */
export const L2_GAS_DEGRADED_TTL_MS = 15_000;
/** A network's last good reading is served for at most this long after every provider failed. */
export const L2_LAST_GOOD_MAX_AGE_MS = 5 * 60_000;

/**
 * The shared entry key of a network's reading, versioned: in a fleet running two releases at once
 * (a rolling deployment), each reads and writes its own entries, so none reads a reading the other
 * wrote without a field it needs, as unknown (the release before v2 stored no operator fee and no
 * Arbitrum l1GasBaseFeeWei; each instance's answer flipped with the last writer). Bump the version
 * whenever a stored field changes meaning or a field is added that a release needs. Until the old
 * instances are gone, each release refreshes its own entries: twice the upstream reads for that while.
 * An optional field whose absence is true of every entry the release before writes needs no bump:
 * that release strips it on reading (zod objects drop unknown keys) and reads the rest as it wrote
 * its own (so `l1GasKept`, added on 2026-11-28, kept v2).
 */
function l2GasEntryKey(network: Pick<L2Network, 'id'>): string {
  return `l2-gas:v2:${network.id}`;
}

// What a network's shared entry holds; validated on every read: the store is shared and may hold anything.
// Every field but `l1GasKept` is required: each v2 writer stores them all, so a missing one is a broken
// entry, not unknown.
const wei = z.string().regex(/^\d+$/);
const StoredReadingSchema = z
  .object({
    gasPriceWei: wei,
    l1FeeWei: wei.nullable(),
    readAt: z.number().int().positive(),
    baseFeeWei: wei.nullable(),
    suggestedTipWei: wei.nullable(),
    l1GasUnits: wei.nullable(),
    // Arbitrum: the L2 base fee the NodeInterface computed the units with.
    l1GasBaseFeeWei: wei.nullable(),
    // When `l1FeeWei` was read, if before this reading: the oracle failed and the last good L1 fee was kept.
    l1FeeReadAt: z.number().int().positive().nullable(),
    // OP Stack: the operator fee, read apart from the L1 fee, and when, if before this reading (kept as
    // the L1 fee is).
    operatorFee: z
      .object({ transferFeeWei: wei, scalar: wei.nullable(), constant: wei.nullable() })
      .nullable(),
    operatorFeeReadAt: z.number().int().positive().nullable(),
    // Arbitrum: the NodeInterface's last good L1 component (its units, the base fee they were computed
    // with) and when it was read, kept when it did not answer at this reading (l1GasUnits and
    // l1GasBaseFeeWei are then null, as the release before stores such a reading). Optional and apart
    // from those two, so that release, which strips it, reads the entry as it wrote its own: without
    // units, never as units read at `readAt` (see l2GasEntryKey). Absent in its entries: nothing kept.
    l1GasKept: z
      .object({ units: wei, baseFeeWei: wei, readAt: z.number().int().positive() })
      .nullable()
      .optional(),
  })
  .refine(
    (reading) =>
      (reading.l1FeeReadAt === null ||
        (reading.l1FeeWei !== null && reading.l1FeeReadAt <= reading.readAt)) &&
      (reading.operatorFeeReadAt === null ||
        (reading.operatorFee !== null && reading.operatorFeeReadAt <= reading.readAt)) &&
      (reading.l1GasKept == null ||
        (reading.l1GasUnits === null && reading.l1GasKept.readAt <= reading.readAt)),
    'an oracle fee read after its reading',
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
          BigInt(reading.operatorFee.scalar ?? 0) < 1n << 32n &&
          BigInt(reading.operatorFee.constant ?? 0) < 1n << 64n)),
    `reading outside the sane ${network.name} range`,
  );
}
const toWei = (value: string | null) => (value === null ? null : BigInt(value));
const fromWei = (value: bigint | null) => value?.toString() ?? null;
const toOperatorFee = (stored: StoredReading['operatorFee']): OperatorFeeReading | null =>
  stored && {
    transferFeeWei: BigInt(stored.transferFeeWei),
    params:
      stored.scalar === null || stored.constant === null
        ? null
        : { scalar: BigInt(stored.scalar), constant: BigInt(stored.constant) },
  };
const fromOperatorFee = (fee: OperatorFeeReading | null): StoredReading['operatorFee'] =>
  fee && {
    transferFeeWei: fee.transferFeeWei.toString(),
    scalar: fee.params?.scalar.toString() ?? null,
    constant: fee.params?.constant.toString() ?? null,
  };

/** A network as a shared data kind: its gas price, fee suggestion (and OP Stack L1 and operator fees, Arbitrum L1 gas) from its providers. */
function networkKind(deps: AppDeps, network: L2Network): SharedKind<StoredReading> {
  return {
    key: l2GasEntryKey(network),
    schema: storedReadingSchemaOf(network),
    freshMs: L2_GAS_TTL_MS,
    // An OP Stack reading without a live L1 fee is retried as soon as a degraded answer is: SPEC 2.10's
    // wallet fee and feeCompleteness depend on it. So is an Arbitrum reading without live L1 units (none
    // or kept: kept ones are stored apart, l1GasUnits null): the MCP estimate's total depends on them
    // (SPEC extension 17). Units (or an L1 fee) another provider gave when the gas price's failed are
    // live and keep the normal cadence: until 2026-11-28 the NodeInterface was not asked again, so a
    // provider whose NodeInterface failed for good kept Arbitrum on 15 s. The operator fee is additive and keeps the normal
    // cadence when it alone failed: each refresh asks for it again, its last good value stands for at
    // most 5 minutes meanwhile, then it is served as unknown (null, feeNote). On the degraded cadence a
    // provider whose oracle lacks getOperatorFee cost about four times the upstream reads, for good.
    freshMsOf: (v) =>
      (network.hasL1DataFee && (v.l1FeeWei === null || v.l1FeeReadAt !== null)) ||
      (network.hasL1GasUnits && v.l1GasUnits === null)
        ? L2_GAS_DEGRADED_TTL_MS
        : L2_GAS_TTL_MS,
    async read(previous, deadlineAt) {
      try {
        const live = await readL2Network(deps, network, deadlineAt);
        // An oracle read alone failed (on every provider asked): its last good answer (at most 5 minutes
        // old) stands, with its time; the L1 fee and the operator fee each on their own.
        const kept = network.hasL1DataFee ? previous : null;
        const l1 =
          kept && live.l1FeeWei === null
            ? lastGood(kept.l1FeeWei, kept.l1FeeReadAt ?? kept.readAt, live.readAt)
            : null;
        const operator =
          kept && live.operatorFee === null
            ? lastGood(kept.operatorFee, kept.operatorFeeReadAt ?? kept.readAt, live.readAt)
            : null;
        // Arbitrum's L1 component likewise, when the NodeInterface alone failed (on every provider asked):
        // units and base fee together.
        const l1Gas =
          network.hasL1GasUnits && previous && live.l1GasUnits === null
            ? lastGoodL1Gas(previous, live.readAt)
            : null;
        const value = {
          gasPriceWei: live.gasPriceWei.toString(),
          l1FeeWei: l1 ? l1.fee : fromWei(live.l1FeeWei),
          l1FeeReadAt: l1?.readAt ?? null,
          operatorFee: operator ? operator.fee : fromOperatorFee(live.operatorFee),
          operatorFeeReadAt: operator?.readAt ?? null,
          readAt: live.readAt,
          baseFeeWei: fromWei(live.baseFeeWei),
          suggestedTipWei: fromWei(live.suggestedTipWei),
          l1GasUnits: fromWei(live.l1GasUnits),
          l1GasBaseFeeWei: fromWei(live.l1GasBaseFeeWei),
          l1GasKept: l1Gas,
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

/** A stored fee and when it was read, if that was at most 5 minutes before `now`; else null. */
function lastGood<T>(fee: T | null, readAt: number, now: number): { fee: T; readAt: number } | null {
  const age = now - readAt;
  return fee !== null && age >= 0 && age <= L2_LAST_GOOD_MAX_AGE_MS ? { fee, readAt } : null;
}

/** The L1 component `previous` read or kept, with its time, if at most 5 minutes before `now`; else null. */
function lastGoodL1Gas(previous: StoredReading, now: number): NonNullable<StoredReading['l1GasKept']> | null {
  const component =
    previous.l1GasUnits !== null && previous.l1GasBaseFeeWei !== null
      ? { units: previous.l1GasUnits, baseFeeWei: previous.l1GasBaseFeeWei, readAt: previous.readAt }
      : (previous.l1GasKept ?? null);
  return component && lastGood(component, component.readAt, now) ? component : null;
}

/**
 * One network through its shared entry: fresh, else its last good reading (≤ 5 min), else nothing,
 * with when a failed refresh is tried again (`retryAt`); never throws.
 */
export async function readFacts(
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
      l1FeeReadAt: null,
      operatorFee: null,
      operatorFeeReadAt: null,
      readAt: null,
      baseFeeWei: null,
      suggestedTipWei: null,
      l1GasUnits: null,
      l1GasBaseFeeWei: null,
      l1GasReadAt: null,
      retryAt: shared.failure?.retryAt ?? null,
    };
  }
  // Oracle fees kept from an earlier reading are served while they are at most 5 minutes old.
  const expired = (keptAt: number | null) => keptAt !== null && deps.now() - keptAt > L2_LAST_GOOD_MAX_AGE_MS;
  const l1FeeExpired = expired(reading.l1FeeReadAt);
  const operatorFeeExpired = expired(reading.operatorFeeReadAt);
  // Arbitrum's L1 component kept from an earlier reading (stored only when none was read with this one).
  const l1GasKept = reading.l1GasKept && !expired(reading.l1GasKept.readAt) ? reading.l1GasKept : null;
  return {
    // A failed refresh makes the kept reading a last good one, even while it is younger than 60 s.
    status: age < L2_GAS_TTL_MS && !shared.failure ? 'live' : 'last-good',
    gasPriceWei: BigInt(reading.gasPriceWei),
    l1FeeWei: l1FeeExpired ? null : toWei(reading.l1FeeWei),
    l1FeeReadAt: l1FeeExpired ? null : reading.l1FeeReadAt,
    operatorFee: operatorFeeExpired ? null : toOperatorFee(reading.operatorFee),
    operatorFeeReadAt: operatorFeeExpired ? null : reading.operatorFeeReadAt,
    readAt: reading.readAt,
    baseFeeWei: toWei(reading.baseFeeWei),
    suggestedTipWei: toWei(reading.suggestedTipWei),
    l1GasUnits: toWei(l1GasKept ? l1GasKept.units : reading.l1GasUnits),
    l1GasBaseFeeWei: toWei(l1GasKept ? l1GasKept.baseFeeWei : reading.l1GasBaseFeeWei),
    l1GasReadAt: l1GasKept?.readAt ?? null,
    retryAt: shared.failure?.retryAt ?? null,
  };
}
