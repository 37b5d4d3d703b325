import { type CachedAnswer, serveCached } from '../lib/http/cached-answer';
import { SERVICE_NAME } from '../lib/http/envelope';
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
      if (built?.baseUrl !== baseUrl) built = { baseUrl, doc: app.getOpenAPIDocument(documentFor(baseUrl)) };
      return { body: built.doc, options: { basis: [built.doc] } };
    },
  };
  app.get('/openapi.json', (c) => serveCached(c, answer, undefined));
}
