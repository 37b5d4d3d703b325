// The Retry-After of mainnet gas's 503: the seconds until the refresh that failed is tried again (the
// fleet's back-off in lib/store/shared-read.ts: 5 s, doubling to 60 s), counted up from this
// instance's clock. Until 2026-11-28 it was always 30.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { gasUnavailable } from '../../lib/services/current-gas';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { createTestDeps } from '../helpers/deps';
import { findFreePort } from '../helpers/free-port';

const T0 = 1_795_797_910_000;
const KEY = 'current-gas:mainnet';

/** Instances of the app over one shared store, on a clock the test moves; every mainnet upstream refuses. */
async function fleetWithNothingUp() {
  const dead = `http://127.0.0.1:${await findFreePort()}`;
  let now = T0;
  const clock = () => now;
  const store = createMemoryLastGoodStore(clock);
  const env = { MAINNET_RPC_URLS: `${dead}/k`, ETHERSCAN_API_URL: dead, UPSTREAM_TIMEOUT_MS: '500' };
  const instance = () => {
    const deps = createTestDeps(env, { now: clock, lastGood: store });
    return { deps, app: createApp(deps) };
  };
  return { store, instance, advance: (ms: number) => (now += ms) };
}

/** GET /api/gas: its status, Retry-After (a number) and Cache-Control. */
async function getGas(app: ReturnType<typeof createApp>) {
  const res = await app.request('/api/gas');
  await res.body?.cancel();
  return {
    status: res.status,
    retryAfter: Number(res.headers.get('Retry-After')),
    cacheControl: res.headers.get('Cache-Control'),
  };
}

describe('GET /api/gas Retry-After', () => {
  it('counts down to the next attempt, which the back-off puts further away after each failure', async () => {
    const fleet = await fleetWithNothingUp();
    const { app } = fleet.instance();
    // The first failed refresh is tried again after 5 s; this instance looks again within a second
    // after that (its copy is held with jitter, so the fleet's instances do not come at once).
    const first = await getGas(app);
    expect(first).toMatchObject({ status: 503, cacheControl: 'no-store' });
    expect(first.retryAfter).toBeGreaterThanOrEqual(5);
    expect(first.retryAfter).toBeLessThanOrEqual(6);
    // 3 s later the same back-off: 3 s fewer (never a stale copy of the first answer).
    fleet.advance(3_000);
    const later = await getGas(app);
    expect(later.status).toBe(503);
    expect(later.retryAfter).toBe(first.retryAfter - 3);
    // Past it, the second attempt fails: 10 s; then 20 s, 40 s, and at most the back-off's 60 s.
    for (const expected of [10, 20, 40]) {
      fleet.advance(61_000);
      const next = await getGas(app);
      expect(next.status).toBe(503);
      expect(next.retryAfter).toBeGreaterThanOrEqual(expected);
      expect(next.retryAfter).toBeLessThanOrEqual(expected + 1);
    }
    for (let i = 0; i < 2; i++) {
      fleet.advance(61_000);
      expect(await getGas(app)).toMatchObject({ status: 503, retryAfter: 60 });
    }
    expect(await fleet.store.get(KEY)).toMatchObject({ failure: { count: 6 } });
  });

  it("tells another instance of the fleet the time left of the entry's back-off, down to its last second", async () => {
    const fleet = await fleetWithNothingUp();
    // Another instance's refresh failed for the fourth time in a row: the fleet tries again in 40 s.
    await fleet.store.set(
      KEY,
      { value: null, readAt: null, failure: { kind: 'error', retryAt: T0 + 40_000, count: 4 } },
      86_400_000,
    );
    fleet.advance(12_500);
    const { app } = fleet.instance();
    const answer = await getGas(app);
    expect(answer.status).toBe(503);
    expect(answer.retryAfter).toBeGreaterThanOrEqual(28);
    expect(answer.retryAfter).toBeLessThanOrEqual(29);
    // This instance read no upstream: the entry's failure is still the fourth.
    expect(await fleet.store.get(KEY)).toMatchObject({ failure: { retryAt: T0 + 40_000, count: 4 } });
    // A millisecond before the retry time: a second (two if this instance looks again that much later).
    fleet.advance(40_000 - 12_500 - 1);
    const last = await getGas(app);
    expect(last.status).toBe(503);
    expect(last.retryAfter).toBeGreaterThanOrEqual(1);
    expect(last.retryAfter).toBeLessThanOrEqual(2);
  });

  it('says 30 s where no failure tells when the next attempt comes (the documented example)', () => {
    expect(gasUnavailable().retryAfterSeconds).toBe(30);
  });
});
