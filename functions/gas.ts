import { createRoute } from '@hono/zod-openapi';
import { envelopedAnswer, serveCached } from '../lib/http/cached-answer';
import { problemResponses } from '../lib/http/problem';
import { GasResponseSchema, toGasBody } from '../lib/schemas/current-gas';
import { gasUnavailable, getCurrentGas } from '../lib/services/current-gas';
import type { ApiApp } from './app-env';

const route = createRoute({
  method: 'get',
  path: '/api/gas',
  summary: 'Current mainnet gas tiers',
  description:
    'Low / average / high fee per gas (gwei) for Ethereum mainnet: the next block base fee plus the median, ' +
    'over the last 20 non-empty blocks, of the 70th / 90th / 99th percentile priority fee, read from several ' +
    'RPC providers with hedged failover, Etherscan as backstop, or a reading at most 5 minutes old (`source` ' +
    'then starts with `stale:`, and its max fees are widened for the blocks since: see `walletFeesNote`). ' +
    '503 only when none of these exists.',
  responses: {
    200: { description: 'Current tiers.', content: { 'application/json': { schema: GasResponseSchema } } },
    ...problemResponses([503], { path: '/api/gas', unavailable: gasUnavailable() }),
  },
});

/** The current tiers, served through the fast path on the Node host. */
const answer = envelopedAnswer({
  read: (deps) => getCurrentGas(deps),
  toBody: toGasBody,
  updatedAt: (reading) => reading.updatedAt,
});

/** Registers GET /api/gas: the current mainnet tiers alone, for clients that need nothing else. */
export function registerGas(app: ApiApp): void {
  app.openapi(route, (c) => serveCached(c, answer, undefined));
}
