import { createRoute, z } from '@hono/zod-openapi';
import { cachedJson } from '../lib/http/cached-json';
import { buildEnvelope, publicBaseUrl } from '../lib/http/envelope';
import { enumQuery } from '../lib/http/params';
import { problemResponses } from '../lib/http/problem';
import { memoByIdentity } from '../lib/memo';
import { L2_HISTORY_HOURS, L2_HISTORY_NETWORKS, L2GasHistoryResponseSchema } from '../lib/schemas/history';
import type { L2GasHistory } from '../lib/services/l2-gas-history';
import { getL2GasHistory } from '../lib/services/l2-gas-history';
import type { ApiApp } from './app';

/** Shaped once per cached history read (up to 6,720 samples for 168 hours), not once per request. */
const pointsOf = memoByIdentity((history: L2GasHistory) =>
  history.samples.map((s) => ({
    timestamp: new Date(s.time).toISOString(),
    gas_price_gwei: s.gasPriceGwei,
    execution_gas_cost_usd: s.executionGasCostUsd,
  })),
);

const route = createRoute({
  method: 'get',
  path: '/api/l2-gas-history',
  summary: 'L2 gas history',
  description:
    'The raw stored 90-second samples of one L2 network over the last `hours` hours, oldest first.',
  request: {
    query: z.object({
      network: enumQuery('network', L2_HISTORY_NETWORKS, { description: 'L2 network.' }),
      hours: enumQuery('hours', L2_HISTORY_HOURS, { description: 'Window ending now, in hours.' }),
    }),
  },
  responses: {
    200: {
      description: 'Raw L2 samples.',
      content: { 'application/json': { schema: L2GasHistoryResponseSchema } },
    },
    ...problemResponses(400, 503),
  },
});

/** Registers GET /api/l2-gas-history (SPEC 2.11, 4.2 rule 6, decision 11). */
export function registerL2GasHistory(app: ApiApp): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const hours = Number(query.hours);
    const deps = c.var.deps;
    const history = await getL2GasHistory(deps, query.network, hours);
    return cachedJson(
      c,
      {
        ...buildEnvelope(history.updatedAt, publicBaseUrl(deps.config.publicBaseUrl, c.req.url)),
        network: query.network,
        hours,
        points: pointsOf(history),
      },
      { updatedAt: history.updatedAt },
    );
  });
}
