import type { AppDeps } from '../lib/deps';
import { GasUnavailableError } from '../lib/errors';
import { type CurrentGasReading, getCurrentGas, STALE_PREFIX } from '../lib/services/current-gas';
import { getL2Gas, type L2GasResult, selectL2SnapshotRows } from '../lib/services/l2-gas';
import type { L2Snapshot, MainnetSnapshot } from '../lib/store/history-writes';
import { SLOT_MS } from '../lib/store/slots';

/**
 * Reads mainnet gas for a slot through the endpoints' service and shapes the row to store, or
 * returns why nothing can be stored: no upstream answered, or only a last good reading exists (that
 * is no new data: it was already stored when it was live).
 */
export async function readMainnetForSlot(
  deps: AppDeps,
  slotStart: number,
): Promise<{ row: MainnetSnapshot } | { skipped: string }> {
  let reading: CurrentGasReading;
  try {
    // A reading from before the slot (this instance's or the fleet's shared one) is refreshed first.
    reading = await getCurrentGas(deps, { notBefore: slotStart });
  } catch (error) {
    return { skipped: error instanceof GasUnavailableError ? 'no upstream answered' : 'unexpected error' };
  }
  if (reading.source.startsWith(STALE_PREFIX)) return { skipped: 'only a last good reading' };
  const readAt = Date.parse(reading.updatedAt);
  if (!(readAt >= slotStart)) return { skipped: 'reading older than the slot' };
  // A late run (a tick that fired after its slot ended) must not store the next slot's reading here
  // too: the next slot's run would store the same reading again.
  if (readAt >= slotStart + SLOT_MS) return { skipped: 'reading after the slot' };
  return {
    row: {
      slotStart,
      readAt,
      blockNumber: reading.blockNumber,
      baseFeeGwei: reading.baseFee,
      lowGwei: reading.low,
      averageGwei: reading.average,
      highGwei: reading.high,
      source: reading.source,
    },
  };
}

/**
 * Reads the L2 networks for a slot through the endpoints' service and returns the rows to store for
 * the `wanted` networks (live readings with a live or cached price, taken within the slot) and the
 * wanted networks left out, each with the service's status (or why) for the log.
 */
export async function readL2ForSlot(
  deps: AppDeps,
  slotStart: number,
  wanted: ReadonlySet<string>,
): Promise<{ rows: L2Snapshot[]; skipped: Record<string, string> }> {
  let result: L2GasResult | undefined;
  try {
    result = await getL2Gas(deps, { notBefore: slotStart });
  } catch {
    // The service promises not to throw; should it, every network is skipped for this slot.
  }
  const rows = result
    ? selectL2SnapshotRows(result)
        .filter(
          (row) => wanted.has(row.network) && row.readAt >= slotStart && row.readAt < slotStart + SLOT_MS,
        )
        .map((row) => ({ ...row, slotStart }))
    : [];
  const skipped: Record<string, string> = {};
  for (const network of wanted) {
    if (rows.some((row) => row.network === network)) continue;
    const snapshot = result?.snapshots.find((s) => s.network === network);
    skipped[network] = !snapshot
      ? 'not read'
      : snapshot.status !== 'live'
        ? snapshot.status
        : snapshot.executionGasCostUsd === null
          ? 'no price'
          : snapshot.priceStale
            ? 'only a last good price'
            : snapshot.fetchedAt !== null && snapshot.fetchedAt >= slotStart + SLOT_MS
              ? 'reading after the slot'
              : 'reading older than the slot';
  }
  return { rows, skipped };
}
