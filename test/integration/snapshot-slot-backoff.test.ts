// A snapshot run meets a back-off another read set (lib/store/shared-read.ts afterBackoff): one Node
// host, no Redis (the in-process store), one snapshot run per slot (lib/node/scheduler.ts). A request's
// refresh fails 2 s before the slot starts (a passing fault), which backs the kind off for 5 s; the
// upstream is healthy again by the slot's run. Until 2026-11-28 the run got the last good reading and
// skipped the part, and the slot stayed without it (second reading, F1). The clock is fixed: the
// run's wait for the back-off is a real timer of the time left (about 3 s here).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readMainnetForSlot } from '../../cron/slot-readings';
import { getCurrentGas } from '../../lib/services/current-gas';
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
