import { z } from '@hono/zod-openapi';
import type { ForecastAccuracy } from '../services/forecast-accuracy';
import { type BodyOf, EnvelopeSchema } from './envelope';

/** Allowed `window` values of /api/forecast-accuracy (SPEC extension 18). */
export const ACCURACY_WINDOWS = ['7d', '30d'] as const;
export type AccuracyWindow = (typeof ACCURACY_WINDOWS)[number];

const gwei = (description: string) => z.number().nonnegative().openapi({ description });
const pct = (description: string) => z.number().openapi({ description });

/** One confidence band of the calibration table (the back-test's bands, 0.2 wide). */
export const CalibrationBandSchema = z
  .object({
    from: z
      .number()
      .min(0)
      .max(1)
      .openapi({ description: 'Lower bound of the stated confidence (inclusive).' }),
    to: z.number().min(0).max(1).openapi({
      description: 'Upper bound of the stated confidence (exclusive; the last band includes 1).',
    }),
    count: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: 'Forecast hours whose confidence fell in the band.' }),
    statedMean: z.number().min(0).max(1).nullable().openapi({
      description: 'Mean `confidence` the forecasts stated for those hours; null when none fell in the band.',
    }),
    observed: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .openapi({
        description:
          'Share of those hours whose outcome fell within a factor 1.25 of the forecast (the tolerance `confidence` ' +
          'is stated for); null when none fell in the band. Calibrated forecasts have it close to `statedMean`.',
      }),
  })
  .openapi('CalibrationBand');

/** Body of GET /api/forecast-accuracy and of the get_forecast_accuracy tool (SPEC extension 18). */
export const ForecastAccuracyResponseSchema = EnvelopeSchema.extend({
  window: z.enum(ACCURACY_WINDOWS).openapi({ description: 'Echo of the requested window.' }),
  source: z.enum(['live', 'backtest']).openapi({
    description:
      '`live`: scored from the forecasts the service stored hourly and served. `backtest`: fewer than 24 ' +
      'live forecasts have been scored in the window, so the figures come from replaying the stored ' +
      'history (the forecast the service would have served at each past hour, from the hours before it).',
  }),
  origins: z.number().int().nonnegative().openapi({
    description: 'Forecasts scored: one per hour, each with 24 hourly points whose outcome is known.',
  }),
  mae: z
    .object({
      model: gwei('Mean absolute error of the forecast (average tier, gwei).'),
      persistence: gwei('The same for "the price stays where it was when the forecast was made".'),
      sameHourYesterday: gwei('The same for "the price repeats the same hour one day earlier".'),
    })
    .nullable()
    .openapi({
      description: 'Pooled over every scored hour of every forecast; null when nothing was scored.',
    }),
  maeByLeadHours: z
    .array(
      z.object({ hoursAhead: z.number().int().min(1).max(24), mae: gwei('Model MAE at this lead (gwei).') }),
    )
    .nullable()
    .openapi({ description: 'Model MAE by hours ahead (1 to 24); null when nothing was scored.' }),
  calibration: z
    .array(CalibrationBandSchema)
    .nullable()
    .openapi({
      description:
        'Stated confidence against observed outcomes, per band of stated confidence (0-0.2, ..., 0.8-1); null ' +
        'when nothing was scored.',
    }),
  decision: z
    .object({
      waits: z.number().int().nonnegative().openapi({ description: 'Forecasts whose decision was `wait`.' }),
      realizedSavingPct: pct(
        'Mean saving (percent) of following the decision against sending at once, per forecast; negative when ' +
          'following it cost more.',
      ),
      oracleSavingPct: pct('Mean saving (percent) of sending at the cheapest actual hour, per forecast.'),
      dearerWaitsPct: pct(
        'Share (percent) of waits that ended dearer than sending at once; null when no forecast said wait.',
      ).nullable(),
      severeWaitsPct: pct(
        'Share (percent) of waits that ended above twice the price of sending at once; null when no forecast said wait.',
      ).nullable(),
    })
    .nullable()
    .openapi({ description: 'How the send-or-wait decision fared; null when nothing was scored.' }),
  scoredFrom: z.iso
    .datetime()
    .nullable()
    .openapi({ description: 'Hour the earliest scored forecast was made in; null when nothing was scored.' }),
  scoredTo: z.iso
    .datetime()
    .nullable()
    .openapi({ description: 'Hour the latest scored forecast was made in; null when nothing was scored.' }),
}).openapi('ForecastAccuracyResponse');

export type ForecastAccuracyResponse = z.infer<typeof ForecastAccuracyResponseSchema>;
export type ForecastAccuracyBody = BodyOf<typeof ForecastAccuracyResponseSchema>;

/** Shapes the accuracy as SPEC extension 18 describes it: the one place for the endpoint and the tool. */
export function toForecastAccuracyBody(accuracy: ForecastAccuracy): ForecastAccuracyBody {
  return {
    window: accuracy.window,
    source: accuracy.source,
    origins: accuracy.origins,
    mae: accuracy.mae,
    maeByLeadHours: accuracy.maeByLeadHours,
    calibration: accuracy.calibration,
    decision: accuracy.decision,
    scoredFrom: accuracy.scoredFrom,
    scoredTo: accuracy.scoredTo,
  };
}
