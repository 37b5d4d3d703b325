import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import worker from '../../functions/index';
import { edgeCopy } from '../../lib/http/edge-copy';

describe('Worker host in workerd', () => {
  it('answers GET /openapi.json with the OpenAPI document', async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request('https://gas.test/openapi.json'), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=300, s-maxage=300');
    const doc = (await res.json()) as { openapi: string; info: { version: string } };
    expect(doc.openapi).toMatch(/^3\.0\./);
    expect(doc.info.version).toBe('1.0.0');
  });

  it('tags a body with the first 128 bits of its SHA-256, as Web Crypto in workerd computes it', async () => {
    // The tag is hashed with node:crypto (nodejs_compat); a client or cache must get the same tag
    // for the same bytes from the Worker and from the Node host.
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request('https://gas.test/openapi.json?etag-test'), env, ctx);
    await waitOnExecutionContext(ctx);
    const body = new Uint8Array(await res.arrayBuffer());
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
    const b64url = btoa(String.fromCharCode(...digest.subarray(0, 16)))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    expect(res.headers.get('ETag')).toBe(`"${b64url}"`);
  });

  it('answers an unknown path with a 404 problem carrying CORS and the informational headers', async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request('https://gas.test/nope'), env, ctx);
    expect(res.status).toBe(404);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('X-API-Tier')).toBe('free');
  });

  it('serves a repeated GET from the edge cache without running the handler again', async () => {
    const url = 'https://gas.test/openapi.json?edge-cache-test';
    const first = createExecutionContext();
    const miss = await worker.fetch(new Request(url), env, first);
    await waitOnExecutionContext(first);
    expect(miss.headers.get('X-Edge-Cache')).toBeNull();
    const second = createExecutionContext();
    const hit = await worker.fetch(new Request(url), env, second);
    expect(hit.headers.get('X-Edge-Cache')).toBe('HIT');
    expect(await hit.json()).toEqual(await miss.json());
  });

  it('answers from the app when the edge cache fails to look up or to store', async () => {
    const edge = (caches as unknown as { default: Cache }).default;
    const match = vi.spyOn(edge, 'match').mockRejectedValue(new Error('cache unavailable'));
    const put = vi.spyOn(edge, 'put').mockRejectedValue(new Error('cache unavailable'));
    try {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request('https://gas.test/openapi.json?edge-failing'), env, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(200);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(((await res.json()) as { openapi: string }).openapi).toMatch(/^3\.0\./);
      expect(match).toHaveBeenCalled();
      expect(put).toHaveBeenCalled();
    } finally {
      match.mockRestore();
      put.mockRestore();
    }
  });

  it('answers 304 from the edge cache only for the current tag, whatever If-Modified-Since says', async () => {
    const url = 'https://gas.test/api/eth-price?edge-conditional-test';
    const lastModified = 'Wed, 25 Nov 2026 23:08:02 GMT';
    // An edge copy whose body changed since the client's (same data time, another tag).
    await (caches as unknown as { default: Cache }).default.put(
      url,
      new Response('{"usd":3012.45}', {
        headers: {
          'Content-Type': 'application/json',
          ETag: '"current"',
          'Last-Modified': lastModified,
          'Cache-Control': 'public, max-age=30, s-maxage=30',
        },
      }),
    );
    const ask = async (headers: Record<string, string>) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(url, { headers }), env, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const stale: Record<string, string>[] = [
      { 'If-None-Match': '"older"', 'If-Modified-Since': lastModified },
      { 'If-Modified-Since': lastModified },
    ];
    for (const headers of stale) {
      const res = await ask(headers);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ usd: 3012.45 });
      expect(res.headers.get('ETag')).toBe('"current"');
    }
    const current = await ask({ 'If-None-Match': '"current"' });
    expect(current.status).toBe(304);
    expect(current.headers.get('ETag')).toBe('"current"');
    expect(current.headers.get('Cache-Control')).toBe('public, max-age=30, s-maxage=30');
  });

  it("serves an edge copy kept for less than its s-maxage with the response's own Cache-Control", async () => {
    const url = 'https://gas.test/api/gas-predictions?edge-shortened-test';
    const own = 'public, max-age=30, s-maxage=30';
    // What the Worker stores for a forecast 12 s before the hour turns (edgeLifetime, edgeCopy).
    await (caches as unknown as { default: Cache }).default.put(
      url,
      edgeCopy(new Response('{"predictions":[]}', { headers: { 'Cache-Control': own, ETag: '"f"' } }), 12),
    );
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(url), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.headers.get('X-Edge-Cache')).toBe('HIT');
    expect(res.headers.get('Cache-Control')).toBe(own);
    expect(res.headers.has('X-Own-Cache-Control')).toBe(false);
    expect(await res.json()).toEqual({ predictions: [] });
  });

  it('serves an edge copy with its Age, the seconds since the app made it, and its own Cache-Control', async () => {
    const url = 'https://gas.test/api/gas?edge-age-test';
    const own = 'public, max-age=30, s-maxage=30';
    // What the Worker stored for an answer of its (edgeCopy, stamped when the app answered), 17 s later.
    const made = Date.now();
    await (caches as unknown as { default: Cache }).default.put(
      url,
      edgeCopy(new Response('{"low":1}', { headers: { 'Cache-Control': own, ETag: '"g"' } }), 30, made),
    );
    const clock = vi.spyOn(Date, 'now').mockReturnValue(made + 17_000);
    const ask = async (headers: Record<string, string> = {}) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(url, { headers }), env, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    try {
      // A browser then keeps it for the 13 s left of its 30, not 30 s more (until 2026-11-28: no Age).
      const res = await ask();
      expect(res.headers.get('X-Edge-Cache')).toBe('HIT');
      expect(res.headers.get('Age')).toBe('17');
      expect(res.headers.get('Cache-Control')).toBe(own);
      expect(res.headers.has('X-Edge-Stored-At')).toBe(false);
      expect(await res.json()).toEqual({ low: 1 });
      const notModified = await ask({ 'If-None-Match': '"g"' });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('Age')).toBe('17');
    } finally {
      clock.mockRestore();
    }
  });

  it('stamps the copy it keeps at the edge with the time the app answered, served as its Age on a hit', async () => {
    const url = 'https://gas.test/openapi.json?edge-age-stamp-test';
    const made = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(made);
    try {
      const first = createExecutionContext();
      const miss = await worker.fetch(new Request(url), env, first);
      await waitOnExecutionContext(first);
      expect(miss.headers.get('X-Edge-Cache')).toBeNull();
      expect(miss.headers.has('Age')).toBe(false);
      clock.mockReturnValue(made + 42_000);
      const second = createExecutionContext();
      const hit = await worker.fetch(new Request(url), env, second);
      expect(hit.headers.get('X-Edge-Cache')).toBe('HIT');
      expect(hit.headers.get('Age')).toBe('42');
      expect(hit.headers.get('Cache-Control')).toBe('public, max-age=300, s-maxage=300');
    } finally {
      clock.mockRestore();
    }
  });

  it('answers a configuration it cannot start with as a 500 problem with CORS, naming no value', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => lines.push(line));
    try {
      // Upstash's URL without its token: refused by the configuration's check.
      const bad = { ...env, UPSTASH_REDIS_REST_URL: 'https://secret-host.example/redis' };
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request('https://gas.test/api/gas'), bad, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(500);
      expect(res.headers.get('Content-Type')).toBe('application/problem+json');
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ status: 500, title: 'Service misconfigured' });
      expect(lines.some((line) => line.includes('UPSTASH_REDIS_REST_TOKEN must be set together'))).toBe(true);
      expect([text, ...lines].join('\n')).not.toContain('secret-host');
    } finally {
      spy.mockRestore();
    }
  });

  it('runs the scheduled jobs for the tick it was given, and reports a job that cannot run', async () => {
    // The plain bindings have no DATABASE_URL: the snapshot, forecast and back-test jobs must fail,
    // loudly, for that slot and hour (the back-test's is the hour before: its last hour to judge
    // ended under 5 minutes ago).
    // (snapshot-job.test.ts runs the same handler against a real database.)
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => lines.push(line));
    try {
      const scheduledTime = Date.UTC(2026, 0, 1, 12, 0, 0);
      const controller = createScheduledController({ scheduledTime, cron: '* * * * *' });
      const ctx = createExecutionContext();
      await worker.scheduled(controller, env, ctx);
      await waitOnExecutionContext(ctx);
    } finally {
      spy.mockRestore();
    }
    const run = lines.find((line) => line.includes('scheduled run'));
    expect(run).toContain('2026-01-01T12:00:00.000Z');
    expect(run).toContain('"failed":3');
    expect(lines.join('\n')).toMatch(
      /snapshot not stored.*2026-01-01T12:00:00\.000Z.*DATABASE_URL is not set/,
    );
    expect(lines.join('\n')).toMatch(
      /backtest not stored.*2026-01-01T11:00:00\.000Z.*DATABASE_URL is not set/,
    );
    expect(lines.join('\n')).toMatch(
      /forecast not stored or scored.*2026-01-01T12:00:00\.000Z.*DATABASE_URL is not set/,
    );
  });
});
