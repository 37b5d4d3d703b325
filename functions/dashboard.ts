import { createRoute } from '@hono/zod-openapi';
import { envelopedAnswer, serveCached } from '../lib/http/cached-answer';
import { problemResponses } from '../lib/http/problem';
import { DashboardResponseSchema, toDashboardBody } from '../lib/schemas/forecast';
import { gasUnavailable } from '../lib/services/current-gas';
import { getDashboard } from '../lib/services/dashboard';
import type { ApiApp } from './app-env';

const route = createRoute({
  method: 'get',
  path: '/api/dashboard',
  summary: 'Everything a gas widget needs in one call',
  description:
    'Current mainnet tiers, the send-now-or-wait decision, a compact ETH price, the next best window, the 24 hourly ' +
    'predictions and the last 24 hours of history in hourly buckets (empty when the store is unreachable). 503 only ' +
    'when no live or recent mainnet reading exists.',
  responses: {
    200: { description: 'Dashboard.', content: { 'application/json': { schema: DashboardResponseSchema } } },
    ...problemResponses([503], { path: '/api/dashboard', unavailable: gasUnavailable() }),
  },
});

/** The dashboard, served through the fast path on the Node host. */
const answer = envelopedAnswer({
  read: (deps) => getDashboard(deps),
  toBody: toDashboardBody,
  updatedAt: (d) => d.lastUpdated,
});

/** Registers GET /api/dashboard (SPEC.md section 4, decision 10). */
export function registerDashboard(app: ApiApp): void {
  app.openapi(route, (c) => serveCached(c, answer, undefined));
}
