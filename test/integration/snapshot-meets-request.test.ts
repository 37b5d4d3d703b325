// A snapshot run asks for readings taken in its slot (`notBefore`). When it meets a read that a
// request began in the same instance, the request's read may serve the fleet's shared entries, fresh
// but taken before the slot: joining it used to leave the slot without those readings (every L2
// network "reading older than the slot"), and the Worker's lone tick of every other slot writes it
// once. Found by a review with the simulators; here with a fixed clock.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readL2ForSlot, readMainnetForSlot } from '../../cron/slot-readings';
import { L2_NETWORKS } from '../../lib/l2/networks';
import { getCurrentGas } from '../../lib/services/current-gas';
import { getL2Gas } from '../../lib/services/l2-gas';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { slotStartOf } from '../../lib/store/slots';
import { createTestDeps } from '../helpers/deps';
import { startUpstreams, type Upstreams } from '../upstreams';

// The simulators stamp blocks with the real time, so the fixed clock stays near it.
const SLOT_START = slotStartOf(Date.now());
// 10 s into the slot: the fleet's entries, read 2 s before it began, are still fresh for a request.
const NOW = SLOT_START + 10_000;
const NETWORKS = L2_NETWORKS.map((network) => network.id);

let up: Upstreams;
beforeAll(async () => {
  up = await startUpstreams();
});
afterAll(async () => {
  await up?.close();
});

/** The fleet's shared store, filled by another instance 2 s before the slot, answering in 200 ms. */
async function fleetStoreReadBeforeTheSlot(): Promise<LastGoodStore> {
  const shared = createMemoryLastGoodStore();
  const peer = createTestDeps(up.env, { lastGood: shared, now: () => SLOT_START - 2_000 });
  await Promise.all([getL2Gas(peer), getCurrentGas(peer)]);
  return {
    ...shared,
    get: async (key: string) => {
      await delay(200);
      return shared.get(key);
    },
  };
}

describe('a snapshot run that meets a read a request began', () => {
  it('stores every L2 network read within its slot', async () => {
    const deps = createTestDeps(up.env, { lastGood: await fleetStoreReadBeforeTheSlot(), now: () => NOW });
    const request = getL2Gas(deps);
    await delay(10);
    const slot = await readL2ForSlot(deps, SLOT_START, new Set(NETWORKS));
    // The request itself was served the fleet's fresh entries, as it should be.
    expect((await request).snapshots.every((s) => s.fetchedAt === SLOT_START - 2_000)).toBe(true);
    expect(slot.skipped).toEqual({});
    expect(slot.rows.map((row) => row.network).sort()).toEqual([...NETWORKS].sort());
    expect(slot.rows.every((row) => row.readAt >= SLOT_START)).toBe(true);
  });

  it('stores mainnet gas read within its slot', async () => {
    const deps = createTestDeps(up.env, { lastGood: await fleetStoreReadBeforeTheSlot(), now: () => NOW });
    const request = getCurrentGas(deps);
    await delay(10);
    const slot = await readMainnetForSlot(deps, SLOT_START);
    expect(Date.parse((await request).updatedAt)).toBe(SLOT_START - 2_000);
    expect(slot).toMatchObject({ row: { slotStart: SLOT_START } });
    expect('row' in slot && slot.row.readAt >= SLOT_START).toBe(true);
  });
});
