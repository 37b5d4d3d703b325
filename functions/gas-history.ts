import { createRoute, z } from '@hono/zod-openapi';
import { envelopedAnswer, serveCached } from '../lib/http/cached-answer';
import { enumQuery } from '../lib/http/params';
import { problemResponses } from '../lib/http/problem';
import { GasHistoryResponseSchema, HISTORY_RANGES, toGasHistoryBody } from '../lib/schemas/history';
import { getGasHistory, storeUnavailable } from '../lib/services/gas-history';
import type { HistoryRange } from '../lib/store/history-buckets';
import type { ApiApp } from './app-env';

const route = createRoute({
  method: 'get',
  path: '/api/gas-history',
  summary: 'Mainnet gas history',
  description:
    'Bucketed averages of the stored 90-second mainnet snapshots (average tier) over the requested range, ' +
    'buckets aligned to whole multiples of their size, at most 300 points. An empty store answers an empty series.',
  request: {
    query: z.object({
      range: enumQuery('range', HISTORY_RANGES, { description: 'Window ending now.', default: '1d' }),
    }),
  },
  responses: {
    200: {
      description: 'Bucketed mainnet history.',
      content: { 'application/json': { schema: GasHistoryResponseSchema } },
    },
    ...problemResponses([400, 503], {
      path: '/api/gas-history',
      invalid: { name: 'range', value: '1y', allowed: HISTORY_RANGES },
      unavailable: storeUnavailable(),
    }),
  },
});

/** One range's buckets, served through the fast path on the Node host. */
const answer = envelopedAnswer({
  read: (deps, { range }: { range: HistoryRange }) => getGasHistory(deps, range),
  toBody: toGasHistoryBody,
  updatedAt: (history) => history.updatedAt,
});

/** Registers GET /api/gas-history (SPEC 2.9, 4.2 rule 3, decision 9). */
export function registerGasHistory(app: ApiApp): void {
  app.openapi(route, (c) => serveCached(c, answer, c.req.valid('query')));
}
