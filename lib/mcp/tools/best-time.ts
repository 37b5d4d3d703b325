import { z } from 'zod';
import { CurrentGasSchema } from '../../schemas/current-gas';
import {
  DecisionSchema,
  NextBestWindowSchema,
  TIMEFRAMES,
  toGasPredictionsBody,
} from '../../schemas/forecast';
import { getGasPredictions } from '../../services/gas-predictions';
import { timeframeArgument } from '../inputs';
import { defineTool } from '../tool';
import { describeDecision } from './forecast-text';

/** best_time_to_transact: the send-now-or-wait decision of GET /api/gas-predictions. */
export const bestTimeTool = defineTool({
  name: 'best_time_to_transact',
  title: 'Best time to transact on Ethereum',
  description:
    'Whether to send an Ethereum mainnet transaction now or wait: the recommendation (`send_now` or ' +
    '`wait`); for `wait`, the hour to wait for within the timeframe (default 24h), the expected ' +
    'average-tier gas then and the saving in percent (a nearer hour is chosen over a cheaper farther ' +
    'one that saves only a little more); and `nextBestWindow`, the cheapest predicted hour. From an ' +
    'hourly forecast learned from stored history and anchored to the live reading.',
  input: { timeframe: timeframeArgument },
  output: {
    decision: DecisionSchema,
    nextBestWindow: NextBestWindowSchema.nullable().describe(
      'The cheapest predicted hour; null when no predicted hour is cheaper than now.',
    ),
    current: CurrentGasSchema,
    timeframe: z.enum(TIMEFRAMES),
    usingFallbackData: z
      .boolean()
      .describe('True when less than 7 days of stored history exist and a built-in profile stood in.'),
    lastUpdated: z.iso.datetime(),
  },
  async run(deps, { timeframe }) {
    const p = await getGasPredictions(deps, timeframe);
    const body = toGasPredictionsBody(p);
    return {
      data: {
        decision: body.decision,
        nextBestWindow: body.nextBestTime,
        current: body.current,
        timeframe: body.timeframe,
        usingFallbackData: body.usingFallbackData,
        lastUpdated: body.lastUpdated,
      },
      summary: describeDecision(p, timeframe),
      updatedAt: p.lastUpdated,
    };
  },
});
