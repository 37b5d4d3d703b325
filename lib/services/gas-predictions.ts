import type { AppDeps } from '../deps';
import { type ForecastHorizon, forecastGas, type GasForecast, HORIZON_HOURS } from '../forecast';
import { type CurrentGasReading, getCurrentGas } from './current-gas';
import { getForecastHistory, selectHourlyPoints } from './forecast-history';

const TTL_MS = 30_000;
const HOUR_MS = 3_600_000;

/** Everything /api/gas-predictions serves, before the envelope. */
export interface GasPredictions extends GasForecast {
  current: CurrentGasReading;
  historical: { timestamp: string; gasPrice: number }[];
  timeframe: ForecastHorizon;
  dataPoints: number;
  lastUpdated: string;
}

/**
 * Forecasts the coming hours for a horizon from the stored history and the live reading, once per
 * 30 s per horizon and process. Throws the current-gas 503 when no live or recent reading exists.
 */
export function getGasPredictions(deps: AppDeps, timeframe: ForecastHorizon): Promise<GasPredictions> {
  return deps.cache.get(`gas-predictions:${timeframe}`, TTL_MS, async () => {
    const [current, history] = await Promise.all([getCurrentGas(deps), getForecastHistory(deps)]);
    const now = deps.now();
    const forecast = forecastGas({ history: history.hours, current, now, horizon: timeframe });
    const spanStart = Math.floor(now / HOUR_MS) * HOUR_MS - HORIZON_HOURS[timeframe] * HOUR_MS;
    return {
      ...forecast,
      current,
      historical: selectHourlyPoints(history, spanStart),
      timeframe,
      dataPoints: history.snapshotCount,
      lastUpdated: current.updatedAt,
    };
  });
}
