import { createRoute, z } from '@hono/zod-openapi';
import { envelopedAnswer, serveCached } from '../lib/http/cached-answer';
import { enumQuery } from '../lib/http/params';
import { problemResponses } from '../lib/http/problem';
import {
  ACCURACY_WINDOWS,
  type AccuracyWindow,
  ForecastAccuracyResponseSchema,
  toForecastAccuracyBody,
} from '../lib/schemas/forecast-accuracy';
import { getForecastAccuracy } from '../lib/services/forecast-accuracy';
import { storeUnavailable } from '../lib/services/gas-history';
import type { ApiApp } from './app-env';

const route = createRoute({
  method: 'get',
  path: '/api/forecast-accuracy',
  summary: 'Accuracy of the service’s own forecasts',
  description:
    'Every hour the scheduled job stores the 24-hour forecast the service serves (hourly points with their ' +
    'confidence, and the send-or-wait decision); once those hours have happened it scores them against the ' +
    'stored snapshots. This endpoint reports the scores of the forecasts made in the window: MAE against ' +
    'persistence and same-hour-yesterday, MAE by hours ahead, calibration of the stated confidence, and how ' +
    'the decision fared. Until 24 live forecasts have been scored in the window, the figures come from ' +
    'replaying the stored history (`source: "backtest"`). Nothing to score gives `origins: 0` and null figures.',
  request: {
    query: z.object({
      window: enumQuery('window', ACCURACY_WINDOWS, {
        description: 'Forecasts made in this window ending now are scored.',
        default: '7d',
      }),
    }),
  },
  responses: {
    200: {
      description: 'Scores of the forecasts made in the window.',
      content: { 'application/json': { schema: ForecastAccuracyResponseSchema } },
    },
    ...problemResponses([400, 503], {
      path: '/api/forecast-accuracy',
      invalid: { name: 'window', value: '1d', allowed: ACCURACY_WINDOWS },
      unavailable: storeUnavailable(),
    }),
  },
});

/** One window's scores, served through the fast path on the Node host. */
const answer = envelopedAnswer({
  read: (deps, { window }: { window: AccuracyWindow }) => getForecastAccuracy(deps, window),
  toBody: toForecastAccuracyBody,
  updatedAt: (accuracy) => accuracy.updatedAt,
});

/** Registers GET /api/forecast-accuracy (SPEC extension 18). */
export function registerForecastAccuracy(app: ApiApp): void {
  app.openapi(route, (c) => serveCached(c, answer, c.req.valid('query')));
}
