import {
  ACCURACY_WINDOWS,
  ForecastAccuracyResponseSchema,
  toForecastAccuracyBody,
} from '../../schemas/forecast-accuracy';
import { type ForecastAccuracy, getForecastAccuracy } from '../../services/forecast-accuracy';
import { enumArgument } from '../inputs';
import { defineTool } from '../tool';

/** `window` of get_forecast_accuracy, as /api/forecast-accuracy takes it. */
const windowArgument = enumArgument(
  'window',
  ACCURACY_WINDOWS,
  'Score the forecasts made in this window ending now.',
)
  .optional()
  .default('7d');

/** get_forecast_accuracy: the scores of GET /api/forecast-accuracy. */
export const forecastAccuracyTool = defineTool({
  name: 'get_forecast_accuracy',
  title: 'Accuracy of the gas forecasts',
  description:
    'How good the service’s own hourly gas forecasts and send-or-wait decisions have been over a window ' +
    '(7d default, or 30d): mean absolute error (gwei) against persistence and same-hour-yesterday, error by ' +
    'hours ahead, whether the stated confidence matched how often outcomes fell within the tolerance, and the ' +
    'realized saving of following the decision against a perfect-foresight oracle, with the share of waits ' +
    'that ended dearer or above twice the price of sending at once. `source` is `live` when scored from ' +
    'stored forecasts, `backtest` when replayed from stored history because too few live forecasts exist yet.',
  input: { window: windowArgument },
  output: ForecastAccuracyResponseSchema.omit({ citation: true, tier: true }).shape,
  async run(deps, { window }) {
    const accuracy = await getForecastAccuracy(deps, window);
    return {
      data: toForecastAccuracyBody(accuracy),
      summary: describeAccuracy(accuracy),
      updatedAt: accuracy.updatedAt,
    };
  },
});

/** One line an agent can quote: the headline figures, or that nothing has been scored yet. */
export function describeAccuracy(a: ForecastAccuracy): string {
  if (a.origins === 0)
    return (
      `No forecast could be scored in the last ${a.window} yet: none made here has all 24 of its hours ` +
      'behind it, and no stored hour has been replayed yet (that takes 7 days of history before the ' +
      'hour and the 24 hours after it).'
    );
  const parts = [
    `${a.origins} forecasts scored over ${a.window} (${a.source}, ${a.scoredFrom} to ${a.scoredTo})`,
  ];
  if (a.mae) {
    parts.push(
      `MAE ${a.mae.model} gwei against ${a.mae.persistence} (persistence) and ${a.mae.sameHourYesterday} (same hour yesterday)`,
    );
  }
  if (a.decision) {
    const d = a.decision;
    parts.push(
      (d.realizedSavingPct < 0
        ? `following the decision cost ${-d.realizedSavingPct} % more than sending at once on average, against a ${d.oracleSavingPct} % saving for perfect foresight; `
        : `following the decision saved ${d.realizedSavingPct} % on average against ${d.oracleSavingPct} % for perfect foresight; `) +
        `${d.waits} waits` +
        (d.dearerWaitsPct === null
          ? ''
          : `, ${d.dearerWaitsPct} % dearer, ${d.severeWaitsPct} % above twice the price`),
    );
  }
  return `${parts.join('; ')}.`;
}
