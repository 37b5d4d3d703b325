import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { invalidQueryProblem } from '../../lib/http/params';
import { createTestDeps } from '../helpers/deps';

// Apart from http-conventions.test.ts: its probe route declares `range` and `network` with other
// allowed values, and the allowed values of a parameter are remembered by name.
describe('query parameter names', () => {
  it('refuses an array-style or spaced name of every query parameter of every endpoint (SPEC decision 7)', async () => {
    // Real endpoints, their parameters read from the OpenAPI document so that a new one is covered too.
    const app = createApp(
      createTestDeps({}, { fetch: () => Promise.reject(new Error('no network in this test')) }),
    );
    const doc = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string; in: string; required: boolean; schema: { enum: unknown[] } }[] }
        >
      >;
    };
    const checked = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      const params = (operations.get?.parameters ?? []).filter((p) => p.in === 'query');
      for (const param of params) {
        const allowed = param.schema.enum.map(String);
        // Each other required parameter is given validly; an optional one is left to its default.
        const others = params
          .filter((p) => p !== param && p.required)
          .map((p) => `${p.name}=${p.schema.enum[0]}`);
        for (const sent of [`${param.name}[]`, `${param.name}[0]`, `${param.name}[a]`, ` ${param.name}`]) {
          const query = [...others, `${encodeURIComponent(sent)}=${allowed.at(-1)}`].join('&');
          const res = await app.request(`${path}?${query}`);
          expect(res.status, `${path}?${query}`).toBe(400);
          expect(res.headers.get('Content-Type')).toBe('application/problem+json');
          expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
          const body = (await res.json()) as { invalidParams: unknown[] };
          const shown = sent.trim() === sent ? sent : JSON.stringify(sent);
          expect(body.invalidParams, `${path}?${query}`).toEqual([
            param.required
              ? { name: param.name, reason: expect.stringContaining(`(${shown} was given`), allowed }
              : { name: sent, reason: expect.stringContaining(`did you mean ${param.name}?`), allowed },
          ]);
        }
        checked.add(`${path} ${param.name}`);
      }
    }
    expect([...checked].sort()).toEqual([
      '/api/forecast-accuracy window',
      '/api/gas-history range',
      '/api/gas-predictions timeframe',
      '/api/l2-gas-history hours',
      '/api/l2-gas-history network',
    ]);
  });

  it('names a misspelt name of a valid parameter beside a bad value of another one', async () => {
    const app = createApp(
      createTestDeps({}, { fetch: () => Promise.reject(new Error('no network in this test')) }),
    );
    const res = await app.request('/api/l2-gas-history?network=base&hours=5&NETWORK=arbitrum');
    expect(res.status).toBe(400);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    const body = (await res.json()) as { detail: string; invalidParams: unknown[] };
    expect(body.invalidParams).toEqual([
      {
        name: 'NETWORK',
        reason:
          'is not a parameter of this endpoint; parameter names are case-sensitive: did you mean network?',
        allowed: ['arbitrum', 'optimism', 'base', 'polygon'],
      },
      {
        name: 'hours',
        reason: '"5" is not an allowed value',
        allowed: ['1', '6', '24', '168'],
      },
    ]);
    expect(body.detail).toBe(
      'NETWORK is not a parameter of this endpoint; parameter names are case-sensitive: did you mean network? ' +
        'hours "5" is not an allowed value; allowed: 1, 6, 24, 168',
    );
  });

  it('checks a long name in time linear in its length (a name of 16k `[` took seconds)', () => {
    const declared = ['range', 'network', 'hours'];
    const names = [
      '['.repeat(32_000),
      `${'[]'.repeat(16_000)}x`,
      '[a'.repeat(16_000),
      `range${'['.repeat(32_000)}`,
      ` range ${'[0]'.repeat(10_000)}[`,
    ];
    // A budget no busy machine reaches in linear time (the five take a few ms here), while the search
    // tried from every `[` is quadratic: at these lengths, minutes (16k took over a second a name).
    const started = performance.now();
    for (const name of names) expect(invalidQueryProblem({ [name]: ['7d'] }, declared)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('still reads a long bracket suffix as one, whatever it holds', () => {
    for (const name of [
      `range[${'a'.repeat(16_000)}]`,
      `RANGE${'[0]'.repeat(5_000)} `,
      `range[[[${'['.repeat(9_000)}]`,
    ]) {
      const problem = invalidQueryProblem({ [name]: ['7d'] }, ['network', 'range']);
      expect(problem?.extra.invalidParams?.[0]?.reason).toContain(
        'array-style names with brackets are not read',
      );
      expect(problem?.extra.invalidParams?.[0]?.reason).toContain('did you mean range?');
    }
  });
});
