// A snapshot run meets a back-off another read set (lib/store/shared-read.ts afterBackoff): one Node
// host, no Redis (the in-process store), one snapshot run per slot (lib/node/scheduler.ts). A request's
// refresh fails 2 s before the slot starts (a passing fault), which backs the kind off for 5 s; the
// upstream is healthy again by the slot's run. Until 2026-11-28 the run got the last good reading and
// skipped the part, and the slot stayed without it (second reading, F1). The same for an L2 network
// whose failed refresh keeps a last good reading taken earlier in the slot (until later on 2026-11-28
// that one was taken for a reading since the slot's start). The clock is fixed: the run's wait for
// the back-off is a real timer of the time left (about 3 s here; 1 s for the L2 network).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readL2ForSlot, readMainnetForSlot } from '../../cron/slot-readings';
import { getCurrentGas } from '../../lib/services/current-gas';
import { getL2Gas } from '../../lib/services/l2-gas';
import { endBackoffWaits } from '../../lib/store/shared-read';
import { SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { createTestDeps } from '../helpers/deps';
import { startUpstreams, type Upstreams } from '../upstreams';

// The simulators stamp blocks with this clock; it stays near the real time.
let now = slotStartOf(Date.now()) + 57_000;
let up: Upstreams;
beforeAll(async () => {
  up = await startUpstreams({ now: () => now });
});
afterAll(async () => {
  await up?.close();
});

const mainnetRequests = () => up.mainnet.reduce((n, sim) => n + sim.requests.total, 0);

/** A host whose request's refresh failed 2 s before the next slot, the upstream healthy again; the slot's start. */
async function hostBackingOffAtTheSlot() {
  const deps = createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: '400' }, { now: () => now });
  now = slotStartOf(now) + 57_000;
  expect((await getCurrentGas(deps)).source).not.toMatch(/^stale:/);
  now += 31_000;
  await Promise.all([...up.mainnet, up.etherscan].map((sim) => sim.fault('http-500', { times: 1 })));
  expect((await getCurrentGas(deps)).source).toMatch(/^stale:/);
  const slotStart = slotStartOf(now) + SLOT_MS;
  expect(slotStart - now).toBe(2_000);
  // The slot's one run fires 250 ms into it, 2.75 s before the back-off ends.
  now = slotStart + 250;
  return { deps, slotStart };
}

it('fills a slot whose one run meets a back-off ending soon, once it has ended and the upstream answers', async () => {
  const { deps, slotStart } = await hostBackingOffAtTheSlot();
  const before = mainnetRequests();
  const slot = await readMainnetForSlot(deps, slotStart);
  expect(slot).toMatchObject({ row: { slotStart, readAt: slotStart + 250 } });
  // One read, after the back-off (the first provider answers).
  expect(mainnetRequests() - before).toBeGreaterThan(0);
});

it('skips the part at once when the host shuts down during that wait, reading nothing', async () => {
  const { deps, slotStart } = await hostBackingOffAtTheSlot();
  const before = mainnetRequests();
  const slot = readMainnetForSlot(deps, slotStart);
  // The host's close ends the wait (lib/node/host.ts): the run is over without reading the upstream.
  await new Promise((resolve) => setTimeout(resolve, 50));
  endBackoffWaits(deps);
  expect(await slot).toEqual({ skipped: 'only a last good reading' });
  expect(mainnetRequests() - before).toBe(0);
});

it("fills an L2 network's slot when its reading since the slot's start is a failed refresh's last good one, once the back-off has ended", async () => {
  const deps = createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: '400' }, { now: () => now });
  // Every network is read 2 s into a slot; 55 s later (due, a sixth of the 60-s cadence early) a
  // request's refresh of Arbitrum fails (both providers answer HTTP 500), backing it off for 5 s.
  const slotStart = slotStartOf(now) + SLOT_MS;
  now = slotStart + 2_000;
  expect((await getL2Gas(deps)).snapshots.every((s) => s.status === 'live')).toBe(true);
  now += 55_000;
  await Promise.all(up.l2.arbitrum.map((sim) => sim.fault('http-500')));
  const request = await getL2Gas(deps);
  expect(request.snapshots.find((s) => s.network === 'arbitrum')).toMatchObject({
    status: 'last-good',
    fetchedAt: slotStart + 2_000,
  });
  // The providers answer again; the slot's run fires 61 s in, 1 s before the back-off ends. Arbitrum's
  // last good reading is dated since the slot's start, but no reading since then: the run waits out
  // the back-off and reads it again. Until later on 2026-11-28 it got the request's answer (cached,
  // its readings all dated within the slot) and skipped Arbitrum as `last-good`.
  await Promise.all(up.l2.arbitrum.map((sim) => sim.reset()));
  now += 4_000;
  const slot = await readL2ForSlot(deps, slotStart, new Set(['arbitrum']));
  expect(slot.skipped).toEqual({});
  expect(slot.rows).toMatchObject([{ network: 'arbitrum', slotStart, readAt: now }]);
  expect(up.l2.arbitrum.reduce((n, sim) => n + sim.requests.total, 0)).toBeGreaterThan(0);
});
