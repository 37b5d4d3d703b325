import { type AppDeps, getState } from '../deps';
import type { Decision, NextBestTime, Prediction } from '../forecast';
import type { CurrentGasReading } from './current-gas';
import { getEthPrice, type TokenPrice } from './eth-price';
import { type GasPredictions, getGasPredictions } from './gas-predictions';

/** Everything /api/dashboard serves, as domain values (`toDashboardBody` shapes the body). */
export interface Dashboard {
  currentGas: CurrentGasReading;
  decision: Decision;
  ethPrice: TokenPrice;
  nextBestWindow: NextBestTime | null;
  predictions: Prediction[];
  compactHistory: { timestamp: string; gasPrice: number }[];
  lastUpdated: string;
  /** The forecast's own flag: the built-in profile stood in for under 7 days of stored history. */
  usingFallbackData: boolean;
}

/**
 * Combines the live tiers, the 24-hour forecast and decision, the ETH price and the last day of
 * history. Every part comes from a cached service, so the store is read once per refresh; while the
 * parts are the same, so is the returned object (the endpoint then serves its rendered bytes).
 * @throws GasUnavailableError when no live or recent mainnet reading exists (from getCurrentGas).
 */
export async function getDashboard(deps: AppDeps): Promise<Dashboard> {
  const [forecast, price] = await Promise.all([getGasPredictions(deps, '24h'), getEthPrice(deps)]);
  const last = getState(deps, 'dashboard-served', () => ({
    forecast: null as GasPredictions | null,
    price: null as TokenPrice | null,
    dashboard: null as Dashboard | null,
  }));
  if (last.dashboard && last.forecast === forecast && last.price === price) return last.dashboard;
  const dashboard: Dashboard = {
    currentGas: forecast.current,
    decision: forecast.decision,
    ethPrice: price,
    nextBestWindow: forecast.nextBestTime,
    predictions: forecast.predictions,
    // The 24-hour forecast's own history: the same hours the predictions were anchored on.
    compactHistory: forecast.historical,
    lastUpdated: forecast.lastUpdated,
    usingFallbackData: forecast.usingFallbackData,
  };
  Object.assign(last, { forecast, price, dashboard });
  return dashboard;
}
