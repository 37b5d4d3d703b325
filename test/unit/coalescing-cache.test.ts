import { describe, expect, it } from 'vitest';
import { createCoalescingCache } from '../../lib/http/cache';

describe('coalescing TTL cache', () => {
  it('makes one underlying call for 100 concurrent callers', async () => {
    const cache = createCoalescingCache();
    let calls = 0;
    let release!: (value: number) => void;
    const load = () => {
      calls += 1;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const waiting = Array.from({ length: 100 }, () => cache.get('k', 30_000, load));
    release(42);
    expect(await Promise.all(waiting)).toEqual(Array(100).fill(42));
    expect(calls).toBe(1);
  });

  it('serves the stored value within the TTL and loads again after it', async () => {
    let now = 1_000;
    const cache = createCoalescingCache({ now: () => now });
    let calls = 0;
    const load = async () => ++calls;
    expect(await cache.get('k', 30_000, load)).toBe(1);
    now += 29_999;
    expect(await cache.get('k', 30_000, load)).toBe(1);
    now += 1;
    expect(await cache.get('k', 30_000, load)).toBe(2);
    expect(cache.peek('k')).toEqual({ value: 2, storedAt: now });
  });

  it('loads again when the clock is set back before the time a value was stored', async () => {
    let now = 1_000_000;
    const cache = createCoalescingCache({ now: () => now });
    let calls = 0;
    const load = async () => ++calls;
    expect(await cache.get('k', 30_000, load)).toBe(1);
    // Set back an hour: the stored value's age is unknown, so it is not kept for another hour.
    now -= 3_600_000;
    expect(await cache.get('k', 30_000, load)).toBe(2);
    now += 29_999;
    expect(await cache.get('k', 30_000, load)).toBe(2);
  });

  it('does not cache an error as a success: every waiter sees it and the next call loads again', async () => {
    const cache = createCoalescingCache();
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error('upstream down');
    };
    const results = await Promise.allSettled([
      cache.get('k', 30_000, failing),
      cache.get('k', 30_000, failing),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(cache.peek('k')).toBeUndefined();
    expect(await cache.get('k', 30_000, async () => 'recovered')).toBe('recovered');
  });

  it('says when every load in flight has settled, failed ones included, and at once with none', async () => {
    const cache = createCoalescingCache();
    let settledYet = false;
    await cache.settled();
    let finish: (value: number) => void = () => {};
    const loading = cache.get('slow', 1_000, () => new Promise<number>((resolve) => (finish = resolve)));
    const failing = cache.get('bad', 1_000, () => Promise.reject(new Error('upstream down')));
    const settled = cache.settled().then(() => (settledYet = true));
    await failing.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settledYet).toBe(false);
    finish(7);
    await settled;
    expect(await loading).toBe(7);
  });

  it('evicts the oldest key past its bound', async () => {
    const cache = createCoalescingCache({ maxEntries: 2 });
    for (const key of ['a', 'b', 'c']) await cache.get(key, 60_000, async () => key);
    expect(cache.peek('a')).toBeUndefined();
    expect(cache.peek('c')?.value).toBe('c');
  });
});
