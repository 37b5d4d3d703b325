import { describe, expect, it } from 'vitest';
import { RpcAttemptError } from '../../lib/upstream/rpc-errors';
import { assertFresh, recordBestBlock } from '../../lib/upstream/rpc-freshness';
import {
  BASE_COOLDOWN_MS,
  createPoolHealth,
  getProviderHealth,
  MAX_COOLDOWN_MS,
  orderCandidates,
  recordFailure,
  recordSuccess,
  reserveCandidates,
} from '../../lib/upstream/rpc-health';

const providers = [{ key: 'a' }, { key: 'b' }, { key: 'c' }];

describe('provider cooldown', () => {
  it('cools a provider down from its second failure in a row, doubling each time', () => {
    const pool = createPoolHealth();
    const a = getProviderHealth(pool, 'a');
    recordFailure(a, 'timeout', 1_000);
    expect(a.cooldownUntil).toBe(0);
    recordFailure(a, 'timeout', 1_000);
    expect(a.cooldownUntil).toBe(1_000 + BASE_COOLDOWN_MS);
    recordFailure(a, 'http', 2_000);
    expect(a.cooldownUntil).toBe(2_000 + 2 * BASE_COOLDOWN_MS);
    for (let i = 0; i < 20; i++) recordFailure(a, 'http', 3_000);
    expect(a.cooldownUntil).toBe(3_000 + MAX_COOLDOWN_MS);
    recordSuccess(a);
    expect(a).toMatchObject({ consecutiveFailures: 0, cooldownUntil: 0 });
  });

  it('cools a wrong-chain provider down for the maximum at once', () => {
    const pool = createPoolHealth();
    const b = getProviderHealth(pool, 'b');
    b.chainVerifiedAt = 40;
    recordFailure(b, 'wrong-chain', 50);
    expect(b).toMatchObject({ cooldownUntil: 50 + MAX_COOLDOWN_MS, chainVerifiedAt: 0 });
  });

  it('keeps cooling providers in reserve, soonest recovery first, but not one on a wrong chain', () => {
    const pool = createPoolHealth();
    recordFailure(getProviderHealth(pool, 'a'), 'wrong-chain', 1_000);
    getProviderHealth(pool, 'b').cooldownUntil = 30_000;
    getProviderHealth(pool, 'c').cooldownUntil = 20_000;
    const candidates = orderCandidates(pool, providers, 5_000);
    expect(candidates.map((p) => p.key)).toEqual(['c']);
    expect(reserveCandidates(pool, providers, candidates).map((p) => p.key)).toEqual(['b']);
  });

  it('skips cooling providers, keeping priority order', () => {
    const pool = createPoolHealth();
    getProviderHealth(pool, 'a').cooldownUntil = 10_000;
    expect(orderCandidates(pool, providers, 5_000).map((p) => p.key)).toEqual(['b', 'c']);
    expect(orderCandidates(pool, providers, 10_000).map((p) => p.key)).toEqual(['a', 'b', 'c']);
  });

  it('ends a cooldown at once when the clock is set back, instead of as long as it went back', () => {
    const pool = createPoolHealth();
    const a = getProviderHealth(pool, 'a');
    recordFailure(a, 'wrong-chain', 3_600_000); // the longest cooldown, from an hour "later"
    expect(orderCandidates(pool, providers, 3_600_000 + 1).map((p) => p.key)).toEqual(['b', 'c']);
    expect(orderCandidates(pool, providers, 1_000).map((p) => p.key)).toEqual(['a', 'b', 'c']);
  });

  it('still probes the provider that recovers first when all are cooling', () => {
    const pool = createPoolHealth();
    getProviderHealth(pool, 'a').cooldownUntil = 9_000;
    getProviderHealth(pool, 'b').cooldownUntil = 7_000;
    getProviderHealth(pool, 'c').cooldownUntil = 8_000;
    expect(orderCandidates(pool, providers, 1_000).map((p) => p.key)).toEqual(['b']);
  });
});

describe('answer freshness', () => {
  const limits = { maxBlockAgeMs: 60_000, maxLagMs: 36_000 };
  const now = 1_700_000_000_000;

  const kindOf = (fn: () => void) => {
    try {
      fn();
      return 'ok';
    } catch (error) {
      return error instanceof RpcAttemptError ? error.kind : 'other';
    }
  };

  it('accepts a recent block and rejects one older than a minute', () => {
    const pool = createPoolHealth();
    expect(
      kindOf(() => assertFresh({ blockNumber: 10n, timestamp: now / 1000 - 59 }, pool, limits, now)),
    ).toBe('ok');
    expect(
      kindOf(() => assertFresh({ blockNumber: 10n, timestamp: now / 1000 - 61 }, pool, limits, now)),
    ).toBe('stale');
  });

  it('rejects an answer lagging the best block seen by more than the limit (three 12-s slots)', () => {
    const pool = createPoolHealth();
    const t = now / 1000;
    recordBestBlock({ blockNumber: 100n, timestamp: t }, pool, now);
    expect(kindOf(() => assertFresh({ blockNumber: 97n, timestamp: t - 36 }, pool, limits, now))).toBe('ok');
    expect(kindOf(() => assertFresh({ blockNumber: 96n, timestamp: t - 48 }, pool, limits, now))).toBe('lag');
  });

  it('is not poisoned by a block numbered far ahead, or from another chain, with a current time', () => {
    const pool = createPoolHealth();
    const t = now / 1000;
    recordBestBlock({ blockNumber: 10n ** 12n, timestamp: t }, pool, now);
    expect(kindOf(() => assertFresh({ blockNumber: 100n, timestamp: t - 12 }, pool, limits, now))).toBe('ok');
  });

  it('takes a best block stamped in the future as seen now, so honest providers are not behind it', () => {
    const pool = createPoolHealth();
    const t = now / 1000;
    recordBestBlock({ blockNumber: 101n, timestamp: t + 240 }, pool, now);
    expect(pool.bestBlock?.timestampMs).toBe(now);
    expect(kindOf(() => assertFresh({ blockNumber: 100n, timestamp: t - 12 }, pool, limits, now))).toBe('ok');
  });

  it('forgets a best block after ten minutes, so one bogus answer cannot block the pool', () => {
    const pool = createPoolHealth();
    recordBestBlock({ blockNumber: 10_000n, timestamp: now / 1000 }, pool, now);
    const later = now + 11 * 60_000;
    expect(
      kindOf(() => assertFresh({ blockNumber: 100n, timestamp: later / 1000 }, pool, limits, later)),
    ).toBe('ok');
    recordBestBlock({ blockNumber: 100n, timestamp: later / 1000 }, pool, later);
    expect(pool.bestBlock?.number).toBe(100n);
  });

  it('rejects a block stamped far in the future', () => {
    const pool = createPoolHealth();
    expect(
      kindOf(() => assertFresh({ blockNumber: 1n, timestamp: now / 1000 + 3600 }, pool, limits, now)),
    ).toBe('absurd');
  });
});
