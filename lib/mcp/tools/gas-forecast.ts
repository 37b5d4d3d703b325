import { z } from 'zod';
import { CurrentGasSchema } from '../../schemas/current-gas';
import {
  DecisionSchema,
  NextBestWindowSchema,
  PredictionSchema,
  TIMEFRAMES,
  toGasPredictionsBody,
} from '../../schemas/forecast';
import { getGasPredictions } from '../../services/gas-predictions';
import { timeframeArgument } from '../inputs';
import { defineTool } from '../tool';
import { describeForecast } from './forecast-text';

/** get_gas_forecast: the hourly predictions of GET /api/gas-predictions. */
export const gasForecastTool = defineTool({
  name: 'get_gas_forecast',
  title: 'Ethereum gas forecast',
  description:
    'Hourly forecast of Ethereum mainnet gas (low, average, high in gwei) from the next whole hour: 6, 12, ' +
    '24 (default) or 168 points for timeframe 6h, 12h, 24h or 7d, each with a confidence and whether it ' +
    'lies in a predicted low-fee window; plus the cheapest hour and the send-or-wait decision.',
  input: { timeframe: timeframeArgument },
  output: {
    timeframe: z.enum(TIMEFRAMES),
    predictions: z.array(PredictionSchema),
    nextBestTime: NextBestWindowSchema.nullable(),
    decision: DecisionSchema,
    current: CurrentGasSchema,
    dataPoints: z.number().int().nonnegative().describe('Stored snapshots the forecast used.'),
    usingFallbackData: z
      .boolean()
      .describe('True when less than 7 days of stored history exist and a built-in profile stood in.'),
    lastUpdated: z.iso.datetime(),
  },
  async run(deps, { timeframe }) {
    const p = await getGasPredictions(deps, timeframe);
    // The body of GET /api/gas-predictions less its hourly history, which the forecast tool leaves out.
    const { historical: _, ...data } = toGasPredictionsBody(p);
    return {
      data,
      summary: describeForecast(p, timeframe),
      updatedAt: p.lastUpdated,
    };
  },
});
