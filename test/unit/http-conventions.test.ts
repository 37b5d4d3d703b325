import { createRoute, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { cacheControlFor } from '../../lib/http/cache-control';
import { buildEnvelope } from '../../lib/http/envelope';
import { enumQuery } from '../../lib/http/params';
import { HttpProblem, problemResponses } from '../../lib/http/problem';
import { createTestDeps } from '../helpers/deps';

/** An app with one extra route that exercises validation and problems the way real endpoints do. */
function appWithProbe() {
  const app = createApp(createTestDeps());
  const route = createRoute({
    method: 'get',
    path: '/api/probe',
    request: {
      query: z.object({
        range: enumQuery('range', ['10m', '1d'], { description: 'window', default: '1d' }),
        network: enumQuery('network', ['arbitrum', 'base'], { description: 'network' }),
      }),
    },
    responses: {
      200: { description: 'ok', content: { 'application/json': { schema: z.object({}) } } },
      ...problemResponses([400, 503], { path: '/api/probe' }),
    },
  });
  app.openapi(route, (c) => {
    const { range, network } = c.req.valid('query');
    if (network === 'base')
      throw new HttpProblem(503, 'Store unavailable', 'try later', { retryAfterSeconds: 30 });
    return c.json({ ...buildEnvelope(0, 'https://gas.test'), range }, 200);
  });
  return app;
}

describe('HTTP conventions', () => {
  it('gives every endpoint of SPEC.md its refresh cadence as Cache-Control (decision 12)', () => {
    const expected: Record<string, number> = {
      '/api/dashboard': 30,
      '/api/gas-predictions': 30,
      '/api/gas-history': 30,
      '/api/eth-price': 30,
      '/api/l2-gas': 60,
      '/api/l2-gas-history': 15,
      // Not in SPEC 4.3's table; mainnet readings refresh about every 30 s (SPEC's Freshness row).
      '/api/gas': 30,
      // SPEC extension 18.
      '/api/forecast-accuracy': 300,
      '/openapi.json': 300,
    };
    for (const [path, seconds] of Object.entries(expected)) {
      expect(cacheControlFor(path)).toBe(`public, max-age=${seconds}, s-maxage=${seconds}`);
    }
    expect(cacheControlFor('/api/probe')).toBeUndefined();
  });

  it('stamps a 200 with CORS and the informational headers, and no-store where no cadence applies', async () => {
    const res = await appWithProbe().request('/api/probe?network=arbitrum');
    expect(res.status).toBe(200);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    // A page on another origin may read the tag it sends back as If-None-Match.
    expect(res.headers.get('Access-Control-Expose-Headers')?.split(', ')).toContain('ETag');
    expect(Object.fromEntries([...res.headers].filter(([k]) => k.startsWith('x-')))).toEqual({
      'x-api-tier': 'free',
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '1000',
      'x-ratelimit-window': '1h',
    });
    const body = await res.json();
    expect(body).toEqual({
      citation:
        'Data from Gas Fee API (https://gas.test), free public Ethereum gas data, updated 1970-01-01T00:00:00.000Z',
      tier: 'free',
      range: '1d',
    });
  });

  it.each([
    ['missing', '', 'network', 'is required'],
    ['wrong value', '?network=zksync', 'network', '"zksync" is not an allowed value'],
    ['wrong case', '?network=Arbitrum', 'network', 'is not an allowed value'],
    ['empty', '?network=', 'network', 'is empty'],
    ['repeated', '?network=base&network=base', 'network', 'is repeated'],
    ['invalid optional', '?network=base&range=1y', 'range', '"1y" is not an allowed value'],
  ])('answers 400 problem+json for a %s parameter', async (_case, query, name, reason) => {
    const res = await appWithProbe().request(`/api/probe${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const body = (await res.json()) as {
      status: number;
      invalidParams: { name: string; reason: string; allowed: string[] }[];
    };
    expect(body.status).toBe(400);
    const param = body.invalidParams.find((p) => p.name === name);
    expect(param?.reason).toContain(reason);
    expect(param?.allowed).toEqual(name === 'range' ? ['10m', '1d'] : ['arbitrum', 'base']);
  });

  it.each([
    [
      'in another case than an optional one',
      '?network=base&RANGE=10m',
      'RANGE',
      'did you mean range?',
      ['10m', '1d'],
    ],
    [
      'in another case than a required one',
      '?Network=base',
      'network',
      'is required (Network was given: parameter names are case-sensitive)',
      ['arbitrum', 'base'],
    ],
    [
      'in array style ([]) for an optional one',
      '?network=base&range[]=10m',
      'range[]',
      'array-style names with brackets are not read: did you mean range?',
      ['10m', '1d'],
    ],
    [
      'in array style ([0]) for an optional one',
      '?network=base&range[0]=10m',
      'range[0]',
      'did you mean range?',
      ['10m', '1d'],
    ],
    [
      'in array style ([x]) for an optional one',
      '?network=base&range%5Bx%5D=10m',
      'range[x]',
      'did you mean range?',
      ['10m', '1d'],
    ],
    [
      'in array style for a required one',
      '?network[]=base',
      'network',
      'is required (network[] was given: array-style names with brackets are not read)',
      ['arbitrum', 'base'],
    ],
    [
      'with whitespace around an optional one',
      '?network=base&%20range=10m',
      ' range',
      'whitespace around a name is not ignored: did you mean range?',
      ['10m', '1d'],
    ],
    [
      'with a space (+) after an optional one',
      '?network=base&range+=10m',
      'range ',
      'did you mean range?',
      ['10m', '1d'],
    ],
    [
      'with whitespace around a required one',
      '?network%09=base',
      'network',
      'is required ("network\\t" was given: whitespace around a name is not ignored)',
      ['arbitrum', 'base'],
    ],
  ])(
    'answers 400 for a parameter name %s, never serving the default',
    async (_, query, name, reason, allowed) => {
      const res = await appWithProbe().request(`/api/probe${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('Content-Type')).toBe('application/problem+json');
      const body = (await res.json()) as {
        invalidParams: { name: string; reason: string; allowed: string[] }[];
      };
      expect(body.invalidParams).toContainEqual({ name, reason: expect.stringContaining(reason), allowed });
    },
  );

  it.each([
    [
      'a misspelt name beside a bad value of another parameter',
      '?network=zksync&range[]=10m',
      [
        ['range[]', 'array-style names with brackets are not read: did you mean range?'],
        ['network', '"zksync" is not an allowed value'],
      ],
    ],
    [
      'a misspelt name beside a bad value of the same parameter',
      '?network=base&range=1y&RANGE=10m',
      [
        ['RANGE', 'parameter names are case-sensitive: did you mean range?'],
        ['range', '"1y" is not an allowed value'],
      ],
    ],
    [
      'a second misspelt name of a missing required parameter',
      '?network[]=base&Network=arbitrum',
      [
        ['Network', 'parameter names are case-sensitive: did you mean network?'],
        ['network', 'is required (network[] was given: array-style names with brackets are not read)'],
      ],
    ],
  ])('names %s in the same 400, the misspelt one first', async (_, query, expected) => {
    const res = await appWithProbe().request(`/api/probe${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    const body = (await res.json()) as { detail: string; invalidParams: { name: string; reason: string }[] };
    expect(body.invalidParams.map((p) => [p.name, p.reason])).toEqual(
      expected.map(([name, reason]) => [name, expect.stringContaining(reason as string)]),
    );
    for (const [name] of expected) expect(body.detail).toContain(`${name} `);
  });

  it('ignores a query parameter the endpoint does not know, such as a cache buster', async () => {
    const res = await appWithProbe().request(
      '/api/probe?network=arbitrum&_=1732700000&Range2=x&ranges[]=x&_[0]=1',
    );
    expect(res.status).toBe(200);
  });

  it('lists a bounded number of array-style names, however many are sent', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => `range[${i}]=10m`).join('&');
    const res = await appWithProbe().request(`/api/probe?network=base&${many}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string; invalidParams: { name: string }[] };
    expect(body.invalidParams.map((p) => p.name).slice(0, 2)).toEqual(['range[0]', 'range[1]']);
    expect(body.invalidParams).toHaveLength(10);
    expect(body.detail).toContain('1990 more such names are not listed.');
    expect(JSON.stringify({ ...body, instance: '' }).length).toBeLessThan(4000);
  });

  it("documents each error status with an example of that status, a 503 with its route's own cause", async () => {
    const doc = (await (await createApp(createTestDeps()).request('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            responses: Record<
              string,
              { content?: Record<string, { example?: { status: number; title: string } }> }
            >;
          }
        >
      >;
    };
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const example = response.content?.['application/problem+json']?.example;
          if (!example) continue;
          checked += 1;
          expect(example.status, `${path} ${status}`).toBe(Number(status));
          if (status === '503')
            expect(example.title, path).toBe(
              path.includes('history') || path.includes('accuracy')
                ? 'History store unavailable'
                : 'Gas data unavailable',
            );
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('does not echo an oversized value back in full', async () => {
    const res = await appWithProbe().request(`/api/probe?network=${'x'.repeat(5000)}`);
    expect(res.status).toBe(400);
    expect((await res.text()).length).toBeLessThan(1000);
  });

  it('renders a thrown HttpProblem with Retry-After and no-store', async () => {
    const res = await appWithProbe().request('/api/probe?network=base');
    expect(res.status).toBe(503);
    expect(res.headers.get('Retry-After')).toBe('30');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });

  it('answers 404 for an unknown path and 405 with Allow for a wrong method', async () => {
    const app = appWithProbe();
    const missing = await app.request('/api/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('X-API-Tier')).toBe('free');
    const wrong = await app.request('/api/probe', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('Allow')).toBe('GET, HEAD, OPTIONS');
    expect(wrong.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });

  it('answers a CORS preflight with 204 and the allowed methods and headers', async () => {
    const res = await appWithProbe().request('/api/probe', {
      method: 'OPTIONS',
      headers: { Origin: 'https://dapp.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    // The methods this path answers, not every method of the API.
    expect(res.headers.get('Access-Control-Allow-Methods')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('Allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('offers POST only where it is answered, and no preflight for a path that does not exist', async () => {
    const app = appWithProbe();
    const preflight = (path: string) =>
      app.request(path, {
        method: 'OPTIONS',
        headers: { Origin: 'https://dapp.example', 'Access-Control-Request-Method': 'POST' },
      });
    const mcp = await preflight('/api/mcp');
    expect(mcp.status).toBe(204);
    expect(mcp.headers.get('Access-Control-Allow-Methods')).toBe('POST, OPTIONS');
    const asset = await preflight('/assets/dashboard.js');
    expect(asset.headers.get('Access-Control-Allow-Methods')).toBe('GET, HEAD, OPTIONS');
    const missing = await preflight('/api/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('Content-Type')).toContain('application/problem+json');
    expect(missing.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });

  it('answers 500 without a stack trace or message from inside', async () => {
    const deps = createTestDeps();
    const app = createApp(deps);
    app.get('/boom', () => {
      throw new Error('secret detail at https://rpc.example/v3/KEY');
    });
    const res = await app.request('/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('KEY');
    expect(text).not.toContain('at ');
    expect(deps.logs.join('\n')).not.toContain('/v3/KEY');
  });
});
