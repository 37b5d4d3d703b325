import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import { WEB_CACHE_CONTROL } from '../../lib/web/assets';

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`https://gas.test${path}`, { headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe('pages in workerd, from the static assets binding', () => {
  it.each([
    ['/', 'Ethereum gas now'],
    ['/docs', 'Connect an AI agent (MCP)'],
  ])(
    'serves %s with an ETag, one Cache-Control on both hosts, CORS and the informational headers',
    async (path, text) => {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
      expect(res.headers.get('Cache-Control')).toBe(WEB_CACHE_CONTROL);
      expect(res.headers.get('ETag')).toBeTruthy();
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(res.headers.get('X-API-Tier')).toBe('free');
      expect(res.headers.get('X-RateLimit-Window')).toBe('1h');
      expect(res.headers.get('X-Edge-Cache')).toBeNull();
      expect(await res.text()).toContain(text);
    },
  );

  it('revalidates: a matching If-None-Match answers 304 with the same caching headers', async () => {
    const first = await get('/assets/dashboard.js');
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const again = await get('/assets/dashboard.js', { 'If-None-Match': first.headers.get('ETag')! });
    expect(again.status).toBe(304);
    expect(again.headers.get('Cache-Control')).toBe(WEB_CACHE_CONTROL);
    expect(again.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });

  it("serves the API reference's renderer from the assets, not from the script", async () => {
    const res = await get('/assets/vendor/swagger-ui-bundle.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/javascript/);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  });

  it.each(['/assets/nope.js', '/index.html', '/docs.html', '/assets/vendor/nested/x.js'])(
    'answers %s with a 404 problem: only the pages and their assets are served',
    async (path) => {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    },
  );
});
