import { createRoute, z } from '@hono/zod-openapi';
import { envelopedAnswer, serveCached } from '../lib/http/cached-answer';
import { enumQuery } from '../lib/http/params';
import { problemResponses } from '../lib/http/problem';
import { GasPredictionsResponseSchema, TIMEFRAMES, toGasPredictionsBody } from '../lib/schemas/forecast';
import { gasUnavailable } from '../lib/services/current-gas';
import { getGasPredictions } from '../lib/services/gas-predictions';
import type { ApiApp } from './app-env';

const route = createRoute({
  method: 'get',
  path: '/api/gas-predictions',
  summary: 'Hourly mainnet gas forecast with a send-now-or-wait decision',
  description:
    'Hourly forecast of the low / average / high tiers from the next whole hour (6, 12, 24 or 168 points), learned ' +
    'from the hour-of-week pattern of stored snapshots and anchored to the live reading. With less than 7 days of ' +
    'stored history, or when the store is unreachable, a built-in profile derived from real mainnet data stands in ' +
    '(`usingFallbackData: true`). 503 only when no live or recent mainnet reading exists.',
  request: {
    query: z.object({
      timeframe: enumQuery('timeframe', TIMEFRAMES, { description: 'Forecast horizon.', default: '24h' }),
    }),
  },
  responses: {
    200: {
      description: 'Forecast and decision.',
      content: { 'application/json': { schema: GasPredictionsResponseSchema } },
    },
    ...problemResponses([400, 503], {
      path: '/api/gas-predictions',
      invalid: { name: 'timeframe', value: '48h', allowed: TIMEFRAMES },
      unavailable: gasUnavailable(),
    }),
  },
});

/** One horizon's forecast, served through the fast path on the Node host. */
const answer = envelopedAnswer({
  read: (deps, { timeframe }: { timeframe: (typeof TIMEFRAMES)[number] }) =>
    getGasPredictions(deps, timeframe),
  toBody: toGasPredictionsBody,
  updatedAt: (p) => p.lastUpdated,
});

/** Registers GET /api/gas-predictions (SPEC.md section 4, decision 8). */
export function registerGasPredictions(app: ApiApp): void {
  app.openapi(route, (c) => serveCached(c, answer, c.req.valid('query')));
}
