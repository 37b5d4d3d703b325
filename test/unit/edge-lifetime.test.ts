import { describe, expect, it } from 'vitest';
import { edgeLifetime, publicCache } from '../../lib/http/cache-control';
import { edgeCopy, serveEdgeCopy } from '../../lib/http/edge-copy';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const thirty = publicCache(30);

describe('edgeLifetime (how long the Worker edge keeps a 200)', () => {
  it('keeps an answer for its s-maxage when nothing cuts it short', () => {
    const now = at('2026-11-27T09:10:00Z');
    expect(edgeLifetime('/api/gas', thirty, new Date(now - 5_000).toUTCString(), now)).toBe(30);
    expect(edgeLifetime('/api/gas-history', thirty, new Date(now - 3 * HOUR).toUTCString(), now)).toBe(30);
    expect(edgeLifetime('/openapi.json', publicCache(300), null, now)).toBe(300);
    expect(edgeLifetime('/api/gas', 'no-store', null, now)).toBe(0);
  });

  it('keeps a forecast no later than the turn of the hour, when its points would start at the hour under way', () => {
    const now = at('2026-11-27T09:59:48Z');
    const fresh = new Date(now - 2_000).toUTCString();
    expect(edgeLifetime('/api/gas-predictions', thirty, fresh, now)).toBe(12);
    expect(edgeLifetime('/api/dashboard', thirty, fresh, now)).toBe(12);
    expect(edgeLifetime('/api/gas', thirty, fresh, now)).toBe(30);
  });

  it('keeps a live reading no later than 5 minutes after its data time, a last good one included', () => {
    const now = at('2026-11-27T09:10:00Z');
    const old = (seconds: number) => new Date(now - seconds * 1000).toUTCString();
    expect(edgeLifetime('/api/eth-price', thirty, old(280), now)).toBe(20);
    expect(edgeLifetime('/api/gas', thirty, old(299), now)).toBe(1);
    expect(edgeLifetime('/api/l2-gas', publicCache(60), old(310), now)).toBe(0);
  });
});

describe('edgeCopy and serveEdgeCopy', () => {
  const made = at('2026-11-28T09:10:00Z');

  it('stores a shortened life and serves the response its own Cache-Control again on a hit', async () => {
    const res = new Response('{"a":1}', { headers: { 'Cache-Control': thirty, ETag: '"t"' } });
    const stored = edgeCopy(res, 12, made);
    expect(stored.headers.get('Cache-Control')).toBe(publicCache(12));
    expect(await res.text()).toBe('{"a":1}');
    const served = new Headers(stored.headers);
    serveEdgeCopy(served, made + 5_000);
    expect(served.get('Cache-Control')).toBe(thirty);
    expect(served.has('X-Own-Cache-Control')).toBe(false);
    expect(served.get('ETag')).toBe('"t"');
    expect(await stored.text()).toBe('{"a":1}');
  });

  it('stores the response with its own Cache-Control when its life is not shortened', () => {
    const res = new Response('{}', { headers: { 'Cache-Control': thirty } });
    expect(edgeCopy(res, 30, made).headers.get('Cache-Control')).toBe(thirty);
    expect(edgeCopy(res, 30, made).headers.has('X-Own-Cache-Control')).toBe(false);
  });

  it('serves a copy with its Age, the whole seconds since the app made it, counted up', () => {
    const stored = edgeCopy(new Response('{}', { headers: { 'Cache-Control': thirty } }), 30, made);
    const age = (after: number) => {
      const served = new Headers(stored.headers);
      serveEdgeCopy(served, made + after);
      expect(served.has('X-Edge-Stored-At')).toBe(false);
      expect(served.get('Cache-Control')).toBe(thirty);
      return served.get('Age');
    };
    expect(age(0)).toBe('0');
    expect(age(17_000)).toBe('17');
    // 29.2 s: a browser keeps it for the 0.8 s left at most, not 0.8 s more than that.
    expect(age(29_200)).toBe('30');
    // A clock set back meanwhile: never a negative age.
    expect(age(-3_000)).toBe('0');
  });

  it('serves a copy stored without its time (by an earlier release) without an Age', () => {
    const served = new Headers({ 'Cache-Control': thirty });
    serveEdgeCopy(served, made);
    expect(served.has('Age')).toBe(false);
    expect(served.get('Cache-Control')).toBe(thirty);
  });
});
