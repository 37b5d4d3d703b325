import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import { WEB_CACHE_CONTROL } from '../../lib/web/assets';

/** Every asset the two pages reference, as written in their HTML. */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe('pages and assets on the Node host over HTTP', () => {
  let host: NodeHost;
  let base: string;

  beforeAll(async () => {
    host = await startNodeHost(
      { PORT: '0' },
      {
        log: createLogger(() => undefined),
        scheduler: false,
        deps: { withDb: () => Promise.reject(new Error('no store in this test')) },
      },
    );
    base = `http://127.0.0.1:${host.port}`;
  });
  afterAll(() => host?.close());

  it.each([
    ['/', 'text/html; charset=utf-8', 'Ethereum gas now'],
    ['/docs', 'text/html; charset=utf-8', 'Connect an AI agent (MCP)'],
  ])(
    'serves %s with Cache-Control, a strong ETag, CORS and the informational headers',
    async (path, type, text) => {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('cache-control')).toBe(WEB_CACHE_CONTROL);
      expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+(-gzip)?"$/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-api-tier')).toBe('free');
      expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('1000');
      expect(res.headers.get('x-ratelimit-window')).toBe('1h');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await res.text();
      expect(html).toContain(text);
      // Nothing is loaded from another origin: every script, style and icon is a path on this server.
      expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
      for (const asset of assetsOf(html)) {
        const a = await fetch(`${base}${asset}`);
        expect(a.status, asset).toBe(200);
        expect(a.headers.get('cache-control'), asset).toBe(WEB_CACHE_CONTROL);
        expect(a.headers.get('etag'), asset).toBeTruthy();
        expect(a.headers.get('access-control-allow-origin'), asset).toBe('*');
        expect((await a.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
      }
    },
  );

  it('answers 304 with no body and the same caching headers when the ETag matches', async () => {
    for (const path of ['/', '/assets/dashboard.js', '/assets/vendor/swagger-ui-bundle.js']) {
      const first = await fetch(`${base}${path}`, { headers: { 'Accept-Encoding': 'identity' } });
      await first.arrayBuffer();
      const etag = first.headers.get('etag')!;
      const again = await fetch(`${base}${path}`, { headers: { 'If-None-Match': etag } });
      expect(again.status, path).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('cache-control')).toBe(WEB_CACHE_CONTROL);
      expect(again.headers.get('access-control-allow-origin')).toBe('*');
      const changed = await fetch(`${base}${path}`, { headers: { 'If-None-Match': '"something-else"' } });
      expect(changed.status, path).toBe(200);
      await changed.arrayBuffer();
    }
  });

  it('sends text assets gzipped to clients that accept it, under their own ETag', async () => {
    const plain = await fetch(`${base}/assets/vendor/swagger-ui-bundle.js`, {
      headers: { 'Accept-Encoding': 'identity' },
    });
    const bytes = Buffer.from(await plain.arrayBuffer());
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // fetch decodes gzip itself: the headers still say what travelled, and the decoded bytes must match.
    const zipped = await fetch(`${base}/assets/vendor/swagger-ui-bundle.js`, {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(zipped.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    expect(Number(zipped.headers.get('content-length'))).toBeLessThan(bytes.length / 3);
    expect(Buffer.from(await zipped.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it.each([
    ['gzip;q=0', false],
    ['GZIP; Q=0', false],
    ['br, gzip;q=0.000', false],
    ['gzip;q=0, *', false],
    ['*;q=0', false],
    ['br, deflate', false],
    ['identity', false],
    ['gzip;q=2', false],
    ['GZIP', true],
    ['br;q=1, gzip;q=0.1', true],
    ['x-gzip', true],
    ['br, *;q=0.5', true],
    ['gzip;q=0, gzip;q=0.5', true],
  ] as const)('answers Accept-Encoding: %s with gzip: %s (RFC 9110 weights)', async (accept, gzipped) => {
    const res = await fetch(`${base}/assets/vendor/swagger-ui-bundle.js`, {
      headers: { 'Accept-Encoding': accept },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe(gzipped ? 'gzip' : null);
    expect(res.headers.get('etag')?.endsWith('-gzip"')).toBe(gzipped);
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    await res.arrayBuffer();
  });

  it.each([
    '/assets/nope.js',
    '/assets/vendor/swagger-initializer.js',
    '/assets/../package.json',
    '/assets/%2e%2e/package.json',
    '/assets/vendor/../../index.html',
    '/index.html',
  ])('answers %s with a 404 problem: only the pages and their assets are served', async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers POST / with 405 and Allow', async () => {
    const res = await fetch(`${base}/`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
  });
});
