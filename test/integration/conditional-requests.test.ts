// SPEC extension 21: every cacheable 200 carries a strong ETag (and Last-Modified where the data has a
// time), the same bytes while the data is unchanged, and If-None-Match with the current tag gets a 304.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { cacheControlFor } from '../../lib/http/cache-control';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { CACHEABLE_REQUESTS } from '../helpers/cacheable-endpoints';
import { createTestDeps } from '../helpers/deps';
import { startUpstreams, type Upstreams } from '../upstreams';

const ENDPOINTS: readonly string[] = CACHEABLE_REQUESTS;

let clock = Date.now();
let up: Upstreams;
let engine: DatabaseEngine;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  up = await startUpstreams({ now: () => clock });
  engine = await openDatabase({ kind: 'pglite' });
  await engine.migrate();
  const deps = createTestDeps(
    { ...up.env, PUBLIC_BASE_URL: 'https://gas.test' },
    { withDb: engine.withDb, now: () => clock },
  );
  app = createApp(deps);
}, 60_000);
afterAll(async () => {
  await engine?.close();
  await up?.close();
});

async function get(path: string, ifNoneMatch?: string) {
  const res = await app.request(path, ifNoneMatch ? { headers: { 'If-None-Match': ifNoneMatch } } : {});
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe('conditional requests on every cacheable endpoint', () => {
  it.each(ENDPOINTS)(
    '%s: same bytes and tag while unchanged, 304 on the current tag, 200 on a stale one',
    async (path) => {
      await get(path); // the first answer may name its live source; the next ones are served from the cache
      const first = await get(path);
      const second = await get(path);
      expect(first.res.status).toBe(200);
      const etag = first.res.headers.get('ETag') ?? '';
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(second.res.headers.get('ETag')).toBe(etag);
      expect(second.bytes).toEqual(first.bytes);
      const cacheControl = cacheControlFor(path.split('?')[0] as string);
      expect(first.res.headers.get('Cache-Control')).toBe(cacheControl);
      const lastModified = first.res.headers.get('Last-Modified');
      if (path === '/openapi.json') expect(lastModified).toBeNull();
      else {
        // The data's own time, to the second, as the citation states it.
        const { citation } = JSON.parse(new TextDecoder().decode(first.bytes)) as { citation: string };
        const updated = Date.parse(citation.slice(citation.lastIndexOf(' ') + 1));
        expect(lastModified).toBe(new Date(updated).toUTCString());
      }

      const notModified = await get(path, `W/"other", ${etag}`);
      expect(notModified.res.status).toBe(304);
      expect(notModified.bytes).toHaveLength(0);
      for (const name of [
        'ETag',
        'Cache-Control',
        'Last-Modified',
        'Access-Control-Allow-Origin',
        'X-API-Tier',
      ]) {
        expect(notModified.res.headers.get(name), name).toBe(first.res.headers.get(name));
      }
      expect(notModified.res.headers.get('Content-Type')).toBeNull();

      const stale = await get(path, '"not-the-current-tag"');
      expect(stale.res.status).toBe(200);
      expect(stale.bytes).toEqual(first.bytes);
    },
  );

  it('gives a changed body a new tag, and the old tag then gets a 200 with the new body', async () => {
    const before = new Map<string, { etag: string; bytes: Uint8Array }>();
    for (const path of ENDPOINTS) {
      await get(path);
      const { res, bytes } = await get(path);
      before.set(path, { etag: res.headers.get('ETag') ?? '', bytes });
    }
    clock += 2 * 3_600_000; // past every refresh and into a new hour: new blocks, prices, history window
    for (const path of ENDPOINTS) {
      const old = before.get(path);
      const { res, bytes } = await get(path, old?.etag);
      if (path === '/openapi.json') {
        // Built once per process: the same document whatever the time.
        expect(res.status, path).toBe(304);
        continue;
      }
      expect(res.status, path).toBe(200);
      expect(bytes, path).not.toEqual(old?.bytes);
      expect(res.headers.get('ETag'), path).not.toBe(old?.etag);
    }
  });

  it('keeps the price and dashboard tags through the back-off of a price outage on a cold start', async () => {
    await Promise.all([up.coingecko, up.coinbase, up.kraken].map((sim) => sim.fault('refuse')));
    try {
      // A fresh instance: no price was ever read. Its first answers try the price sources once.
      const cold = createApp(
        createTestDeps(
          { ...up.env, PUBLIC_BASE_URL: 'https://gas.test' },
          { withDb: engine.withDb, now: () => clock },
        ),
      );
      const coldGet = async (path: string, ifNoneMatch?: string) => {
        const headers: Record<string, string> = ifNoneMatch ? { 'If-None-Match': ifNoneMatch } : {};
        const res = await cold.request(path, { headers });
        return { res, text: await res.text() };
      };
      const attemptAt = clock;
      for (const path of ['/api/eth-price', '/api/dashboard']) await coldGet(path);
      // A second and then two on, within the back-off the failed attempt set (5 s): nothing was read
      // since, so nothing changed. Until 2026-11-28 the price (and the dashboard's `ethPrice`) was
      // dated by each request, and every answer had a new tag.
      clock += 1_000;
      const first = new Map<string, { etag: string; text: string }>();
      for (const path of ['/api/eth-price', '/api/dashboard']) {
        const { res, text } = await coldGet(path);
        first.set(path, { etag: res.headers.get('ETag') ?? '', text });
      }
      const price = JSON.parse(first.get('/api/eth-price')?.text ?? '{}');
      expect(price).toMatchObject({
        usd: null,
        source: 'unavailable',
        updatedAt: new Date(attemptAt).toISOString(),
      });
      const dashboard = JSON.parse(first.get('/api/dashboard')?.text ?? '{}');
      expect(dashboard.ethPrice).toEqual({ usd: null, change_24h: null, updatedAt: price.updatedAt });
      clock += 1_000;
      for (const [path, { etag, text }] of first) {
        const again = await coldGet(path);
        expect(again.res.headers.get('ETag'), path).toBe(etag);
        expect(again.text, path).toBe(text);
        expect((await coldGet(path, etag)).res.status, path).toBe(304);
      }
    } finally {
      await up.reset();
    }
  });

  it('serves /openapi.json as the same bytes every time, a valid OpenAPI 3.0 document', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => get('/openapi.json')));
    for (const { bytes } of answers) expect(bytes).toEqual(answers[0]?.bytes);
    const doc = JSON.parse(new TextDecoder().decode(answers[0]?.bytes));
    await expect(SwaggerParser.validate(doc)).resolves.toBeTruthy();
  });
});
