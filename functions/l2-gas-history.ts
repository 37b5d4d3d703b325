import { createRoute, z } from '@hono/zod-openapi';
import { envelopedAnswer, serveCached } from '../lib/http/cached-answer';
import { enumQuery } from '../lib/http/params';
import { problemResponses } from '../lib/http/problem';
import {
  L2_HISTORY_HOURS,
  L2_HISTORY_NETWORKS,
  L2GasHistoryResponseSchema,
  toL2GasHistoryBody,
} from '../lib/schemas/history';
import { storeUnavailable } from '../lib/services/gas-history';
import { getL2GasHistory } from '../lib/services/l2-gas-history';
import type { ApiApp } from './app-env';

const route = createRoute({
  method: 'get',
  path: '/api/l2-gas-history',
  summary: 'L2 gas history',
  description:
    'The raw stored 90-second samples of one L2 network over the last `hours` hours, oldest first.',
  request: {
    query: z.object({
      network: enumQuery('network', L2_HISTORY_NETWORKS, { description: 'L2 network.' }),
      hours: enumQuery('hours', L2_HISTORY_HOURS, {
        description: 'Window ending now, in hours.',
        integer: true,
      }),
    }),
  },
  responses: {
    200: {
      description: 'Raw L2 samples.',
      content: { 'application/json': { schema: L2GasHistoryResponseSchema } },
    },
    ...problemResponses([400, 503], {
      path: '/api/l2-gas-history',
      invalid: { name: 'network', value: 'zksync', allowed: L2_HISTORY_NETWORKS, also: 'hours=24' },
      unavailable: storeUnavailable(),
    }),
  },
});

/** One network's samples, served through the fast path on the Node host. */
const answer = envelopedAnswer({
  read: (deps, query: { network: (typeof L2_HISTORY_NETWORKS)[number]; hours: string }) =>
    getL2GasHistory(deps, query.network, Number(query.hours)),
  toBody: toL2GasHistoryBody,
  updatedAt: (history) => history.updatedAt,
});

/** Registers GET /api/l2-gas-history (SPEC 2.11, 4.2 rule 6, decision 11). */
export function registerL2GasHistory(app: ApiApp): void {
  app.openapi(route, (c) => serveCached(c, answer, c.req.valid('query')));
}
