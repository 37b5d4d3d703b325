import { type CachedAnswer, serveCached } from '../lib/http/cached-answer';
import { SERVICE_NAME } from '../lib/http/envelope';
import { PROBLEM_CONTENT_TYPE, problemExample } from '../lib/http/problem';
import type { ApiApp } from './app-env';

/**
 * Serves /openapi.json, generated from the registered routes (OpenAPI 3.0, SPEC.md decision 14) once
 * per process: generating it takes milliseconds of CPU, so it is kept (for the last base address seen;
 * only a Worker without PUBLIC_BASE_URL sees more than one) and served as the same bytes every time.
 */
export function registerOpenApi(app: ApiApp): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/openapi.json',
    summary: 'This OpenAPI document',
    responses: {
      200: {
        description: 'OpenAPI 3.0 description of every endpoint.',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  });
  let built: { baseUrl: string; doc: object } | undefined;
  const documentFor = (baseUrl: string) => ({
    openapi: '3.0.3',
    info: {
      title: SERVICE_NAME,
      version: '1.0.0',
      description:
        'Public, read-only Ethereum gas data: live mainnet tiers from a percentile oracle over several RPC ' +
        'providers, live gas on Arbitrum, Optimism, Base and Polygon, ETH/USD, stored history and an hourly ' +
        'forecast with a send-now-or-wait decision. No key, no signup; every response allows any origin.',
      license: { name: 'CC BY 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' },
    },
    servers: [{ url: baseUrl }],
  });
  // Nothing to read: the document depends on the routes and the base address alone.
  const answer: CachedAnswer<undefined, undefined, object> = {
    read: () => Promise.resolve(undefined),
    present(_, baseUrl) {
      if (built?.baseUrl !== baseUrl) {
        built = { baseUrl, doc: withConventions(app.getOpenAPIDocument(documentFor(baseUrl))) };
      }
      return { body: built.doc, options: { basis: [built.doc] } };
    },
  };
  app.get('/openapi.json', (c) => serveCached(c, answer, undefined));
}

type Operation = { responses: Record<string, { description: string; headers?: object; content?: object }> };

/** A response header in the document. */
const header = (description: string) => ({ description, schema: { type: 'string' } });

/**
 * Adds what every operation shares, so each route need not repeat it: a 405 for a method the path
 * does not answer (SPEC decision 7); on every GET, the ETag and Cache-Control of its 200 and the 304
 * a matching If-None-Match gets (extension 21); and the Retry-After of a 503.
 */
function withConventions<D extends { paths?: object }>(doc: D): D {
  const notAllowed = (path: string) => ({
    description: 'Method not allowed; the `Allow` header lists the allowed methods.',
    headers: { Allow: header('The methods this path answers.') },
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: { $ref: '#/components/schemas/Problem' },
        example: problemExample(405, { path }),
      },
    },
  });
  const caching = {
    ETag: header('Strong validator of the body: the first 128 bits of its SHA-256, quoted.'),
    'Cache-Control': header('`public, max-age=N, s-maxage=N`, N the refresh cadence in seconds.'),
    'Last-Modified': header('Time of the data, where it has one.'),
  };
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Record<string, Operation>][]) {
    for (const [method, operation] of Object.entries(item)) {
      const { responses } = operation;
      responses[405] = { ...notAllowed(path), ...responses[405] };
      const unavailable = responses[503];
      if (unavailable) unavailable.headers = { 'Retry-After': header('Seconds to wait before retrying.') };
      const ok = responses[200];
      if (method !== 'get' || !ok) continue;
      ok.headers = { ...caching, ...ok.headers };
      responses[304] = {
        description: '`If-None-Match` named the current `ETag`: no body, the same caching headers.',
        headers: caching,
      };
    }
  }
  return doc;
}
