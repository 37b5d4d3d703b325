import { createRoute, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { enumQuery } from '../../lib/http/params';
import { createTestDeps } from '../helpers/deps';

// No public route has a path parameter, a header or a body schema yet: these routes exist only on
// this test's app, built by createApp with the app's validation hook.
function appWithRoutes() {
  const app = createApp(
    createTestDeps({}, { fetch: () => Promise.reject(new Error('no network in this test')) }),
  );
  const span = enumQuery('span', ['1d', '7d'], { description: 'window', default: '1d' });
  const ok = { 200: { description: 'ok' } };
  app.openapi(
    createRoute({ method: 'get', path: '/test/flat', request: { query: z.object({ span }) }, responses: ok }),
    (c) => c.json({ span: c.req.valid('query').span }) as never,
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/test/{network}/history',
      request: { params: z.object({ network: z.enum(['base', 'optimism']) }), query: z.object({ span }) },
      responses: ok,
    }),
    (c) => c.json({ span: c.req.valid('query').span }) as never,
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/test/body',
      request: {
        headers: z.object({ 'x-tier': z.enum(['free', 'pro']) }),
        body: {
          required: true,
          content: {
            'application/json': { schema: z.object({ hours: z.number().int(), tier: z.enum(['a', 'b']) }) },
          },
        },
      },
      responses: ok,
    }),
    (c) => c.json({ ok: true }) as never,
  );
  return app;
}

async function problem(res: Response) {
  expect(res.status).toBe(400);
  expect(res.headers.get('Content-Type')).toBe('application/problem+json');
  return (await res.json()) as { title: string; detail: string; invalidParams: unknown[] };
}

describe('request validation through the app hook', () => {
  it('names a misspelt query name on a route with a path parameter as on one without', async () => {
    const app = appWithRoutes();
    for (const path of ['/test/flat', '/test/base/history']) {
      const body = await problem(await app.request(`${path}?SPAN=7d`));
      expect(body.invalidParams, path).toEqual([
        {
          name: 'SPAN',
          reason:
            'is not a parameter of this endpoint; parameter names are case-sensitive: did you mean span?',
          allowed: ['1d', '7d'],
        },
      ]);
    }
    expect((await app.request('/test/base/history?span=7d')).status).toBe(200);
  });

  it('answers a refused path parameter with a problem naming it and its allowed values', async () => {
    const body = await problem(await appWithRoutes().request('/test/arbitrum/history'));
    expect(body.title).toBe('Invalid path parameter');
    expect(body.invalidParams).toEqual([
      { name: 'network', reason: 'is not an allowed value', allowed: ['base', 'optimism'] },
    ]);
    expect(body.detail).toBe('network is not an allowed value; allowed: base, optimism');
  });

  it('answers a refused header and a refused JSON body field each with a problem naming the field', async () => {
    const app = appWithRoutes();
    const send = (tier: string, json: unknown) =>
      app.request('/test/body', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Tier': tier },
        body: JSON.stringify(json),
      });
    const header = await problem(await send('gold', { hours: 1, tier: 'a' }));
    expect(header.title).toBe('Invalid request header');
    expect(header.invalidParams).toEqual([
      { name: 'x-tier', reason: 'is not an allowed value', allowed: ['free', 'pro'] },
    ]);

    const fields = await problem(await send('free', { hours: 1.5, tier: 'c' }));
    expect(fields.title).toBe('Invalid request body');
    expect(fields.invalidParams).toEqual([
      { name: 'hours', reason: expect.stringContaining('int') },
      { name: 'tier', reason: 'is not an allowed value', allowed: ['a', 'b'] },
    ]);

    expect(fields.detail).toBe(
      'hours: Invalid input: expected int, received number. tier is not an allowed value; allowed: a, b',
    );

    const whole = await problem(await send('free', [1, 2]));
    expect(whole.invalidParams).toEqual([{ name: 'body', reason: expect.stringContaining('object') }]);
    expect((await send('free', { hours: 2, tier: 'b' })).status).toBe(200);
  });
});
