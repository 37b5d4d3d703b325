import { z } from '@hono/zod-openapi';
import type { Dashboard } from '../services/dashboard';
import type { GasPredictions } from '../services/gas-predictions';
import { CurrentGasSchema, GasTierSchema, toCurrentGas } from './current-gas';
import { type BodyOf, EnvelopeSchema } from './envelope';
import { EthPriceCompactSchema, toEthPriceCompact } from './eth-price';
import { HistoryPointSchema } from './history';

const gwei = (description: string) => z.number().nonnegative().openapi({ description });

/** One hourly forecast point (SPEC.md 2.4). */
export const PredictionSchema = z
  .object({
    timestamp: z.string().datetime().openapi({ description: 'Start of the forecast hour (UTC).' }),
    low: gwei('Forecast low tier (gwei).'),
    average: gwei('Forecast average tier (gwei).'),
    high: gwei('Forecast high tier (gwei).'),
    isLowFeeWindow: z
      .boolean()
      .openapi({ description: 'True when the hour lies in a predicted low-fee window.' }),
    confidence: z
      .number()
      .min(0)
      .max(1)
      .openapi({ description: 'Confidence in the forecast for this hour, 0 to 1.' }),
  })
  .openapi('Prediction');

/** The cheapest predicted hour (SPEC.md 2.5 and the gas-predictions `nextBestTime`). */
export const NextBestWindowSchema = z
  .object({
    timestamp: z.string().datetime().openapi({ description: 'Start of the cheapest predicted window.' }),
    gasPrices: GasTierSchema,
    confidence: z.number().min(0).max(1).nullable(),
  })
  .openapi('NextBestWindow');

/** Send now or wait (SPEC.md 2.6 and decision 1). */
export const DecisionSchema = z
  .object({
    recommendation: z.enum(['wait', 'send_now']),
    expectedSavingsPct: z.number().min(0).max(100).openapi({
      description: 'Expected saving from waiting, in percent (12.5 means 12.5 %); 0 for `send_now`.',
    }),
    expectedGas: gwei('Expected average-tier gwei at the next best time.'),
    nextBestEtaMinutes: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: 'Minutes until `nextBestAt` (0 when it is now).' }),
    nextBestAt: z
      .string()
      .datetime()
      .openapi({
        description:
          'For `wait`: the start of the predicted hour to wait for (the best expected saving, less 0.2 % ' +
          'per hour waited, so a farther hour must save clearly more than a nearer one). For `send_now`: ' +
          'the start of the cheapest predicted hour when one is cheaper than now, else now itself.',
      }),
    confidence: z.number().min(0).max(1),
  })
  .openapi('Decision');

/** Allowed `timeframe` values of /api/gas-predictions (SPEC 4.1). */
export const TIMEFRAMES = ['6h', '12h', '24h', '7d'] as const;

/** Body of GET /api/gas-predictions (SPEC.md section 4, decision 8). */
export const GasPredictionsResponseSchema = EnvelopeSchema.extend({
  current: CurrentGasSchema,
  historical: z.array(HistoryPointSchema).openapi({
    description: 'Hourly averages of the stored average tier over the same span back in time, oldest first.',
  }),
  predictions: z.array(PredictionSchema).openapi({
    description: 'One point per hour from the next whole hour: 6, 12, 24 or 168 points.',
  }),
  nextBestTime: NextBestWindowSchema.nullable().openapi({
    description: 'The cheapest predicted hour; null when no predicted hour is cheaper than now.',
  }),
  decision: DecisionSchema,
  timeframe: z.enum(TIMEFRAMES),
  dataPoints: z.number().int().nonnegative().openapi({ description: 'Stored snapshots the forecast used.' }),
  lastUpdated: z
    .string()
    .datetime()
    .openapi({ description: 'Time of the live reading the forecast is anchored to.' }),
  usingFallbackData: z.boolean().openapi({
    description:
      'True when less than 7 days of stored history exist (or the store is unreachable) and the built-in ' +
      'hour-of-week profile, derived from real mainnet data, stood in.',
  }),
}).openapi('GasPredictionsResponse');

/** Body of GET /api/dashboard (SPEC.md section 4, decision 10). */
export const DashboardResponseSchema = EnvelopeSchema.extend({
  currentGas: CurrentGasSchema,
  decision: DecisionSchema,
  ethPrice: EthPriceCompactSchema,
  nextBestWindow: NextBestWindowSchema.nullable(),
  predictions: z
    .array(PredictionSchema)
    .openapi({ description: 'The 24 hourly points of the `24h` forecast.' }),
  compactHistory: z.array(HistoryPointSchema).openapi({
    description: 'The last 24 hours in hourly buckets, oldest first; empty when the store is unreachable.',
  }),
  lastUpdated: z.string().datetime(),
  usingFallbackData: z.boolean().openapi({
    description:
      'As in /api/gas-predictions: true when less than 7 days of stored history exist (or the store is ' +
      'unreachable) and the built-in hour-of-week profile stood in, so the decision is a rough estimate.',
  }),
}).openapi('DashboardResponse');

export type GasPredictionsBody = BodyOf<typeof GasPredictionsResponseSchema>;
export type DashboardBody = BodyOf<typeof DashboardResponseSchema>;

/** Shapes a forecast into the GET /api/gas-predictions body (the MCP forecast tools reuse it). */
export function toGasPredictionsBody(p: GasPredictions): GasPredictionsBody {
  return {
    current: toCurrentGas(p.current),
    historical: p.historical,
    predictions: p.predictions,
    nextBestTime: p.nextBestTime,
    decision: p.decision,
    timeframe: p.timeframe,
    dataPoints: p.dataPoints,
    lastUpdated: p.lastUpdated,
    usingFallbackData: p.usingFallbackData,
  };
}

/** Shapes the dashboard's parts into the GET /api/dashboard body. */
export function toDashboardBody(d: Dashboard): DashboardBody {
  return {
    currentGas: toCurrentGas(d.currentGas),
    decision: d.decision,
    ethPrice: toEthPriceCompact(d.ethPrice),
    nextBestWindow: d.nextBestWindow,
    predictions: d.predictions,
    compactHistory: d.compactHistory,
    lastUpdated: d.lastUpdated,
    usingFallbackData: d.usingFallbackData,
  };
}
