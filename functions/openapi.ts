import { publicBaseUrl, SERVICE_NAME } from '../lib/http/envelope';
import type { ApiApp } from './app-env';

/** Serves /openapi.json, generated from the registered routes (OpenAPI 3.0, SPEC.md decision 14). */
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
  app.doc('/openapi.json', (c) => ({
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
    servers: [{ url: publicBaseUrl(c.var.deps.config.publicBaseUrl, c.req.url) }],
  }));
}
