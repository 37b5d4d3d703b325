import { DEFAULT_FORECAST_PARAMS } from '../../forecast/params';
import type { GasPredictions } from '../../services/gas-predictions';

/** Formats minutes as `2 h 5 min`, `45 min` or `now`: easier for a model to relay than a bare count. */
export function formatEta(minutes: number): string {
  if (minutes <= 0) return 'now';
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/**
 * Summarises the send-or-wait decision in one or two sentences, numbers included: the forecast's
 * predicted average at the hour named, and the decision's expected price there (the forecast with the
 * record of past errors and the risk of a fee jump before then, so it can stand above or below the
 * prediction), each called what it is.
 */
export function describeDecision(p: GasPredictions, timeframe: string): string {
  const d = p.decision;
  const now = `average ${p.current.average} gwei now`;
  const fallback = p.usingFallbackData ? ' Forecast from the built-in profile (little stored history).' : '';
  if (d.recommendation === 'wait') {
    const predicted = p.predictions.find((x) => x.timestamp === d.nextBestAt)?.average;
    const forecast = predicted === undefined ? '' : ` (forecast ${predicted} gwei)`;
    // The cheapest hour is named apart, without a reason: the decision passes an hour over for its
    // expected saving under its lead's error record and jump risk, its chance of ending dearer or far
    // dearer, or the cost of the longer wait, and the answer does not say which.
    const cheapest = p.nextBestTime;
    const passedOver =
      cheapest && cheapest.timestamp !== d.nextBestAt
        ? ` The cheapest predicted hour is ${cheapest.timestamp} at ${cheapest.gasPrices.average} gwei; the ` +
          `decision prefers ${d.nextBestAt} once the risk at each hour and the length of the wait ` +
          `(${DEFAULT_FORECAST_PARAMS.waitCostPerHour * 100} % of the price per hour) are counted.`
        : '';
    return (
      `Wait until ${d.nextBestAt} (in ${formatEta(d.nextBestEtaMinutes)}): expected average ${d.expectedGas} gwei ` +
      `there${forecast}, jump risk included, vs ${now}, about ${d.expectedSavingsPct}% cheaper ` +
      `(confidence ${d.confidence}).${passedOver}${fallback}`
    );
  }
  const best = p.nextBestTime
    ? `The cheapest predicted hour within ${timeframe}, ${p.nextBestTime.timestamp} at ${p.nextBestTime.gasPrices.average} ` +
      'gwei, is not worth the wait: with the risk of a fee jump before then counted, the expected saving falls ' +
      "short of what a wait must save, or now's price is already near its 7-day low."
    : `No hour within ${timeframe} is predicted cheaper.`;
  return `Send now (${now}). ${best} Confidence ${d.confidence}.${fallback}`;
}

/** Summarises an hourly forecast: span, range of the average tier, cheapest hour and low-fee hours. */
export function describeForecast(p: GasPredictions, timeframe: string): string {
  const points = p.predictions;
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return `No forecast points for ${timeframe}.`;
  // The hour nextBestTime names when one is cheaper than now (so text and data agree on ties).
  const cheapest =
    points.find((x) => x.timestamp === p.nextBestTime?.timestamp) ??
    points.reduce((a, b) => (b.average < a.average ? b : a));
  const dearest = points.reduce((a, b) => (b.average > a.average ? b : a));
  const lowHours = points.filter((x) => x.isLowFeeWindow).length;
  const fallback = p.usingFallbackData ? ' Built-in profile used (less than 7 days of stored history).' : '';
  return (
    `${timeframe} forecast, ${points.length} hourly points from ${first.timestamp} to ${last.timestamp}: ` +
    `average tier ${cheapest.average} to ${dearest.average} gwei (now ${p.current.average}); cheapest hour ` +
    `${cheapest.timestamp}; ${lowHours} hour(s) in predicted low-fee windows. Decision: ${p.decision.recommendation}.${fallback}`
  );
}
