import type { AppDeps } from '../deps';
import type { Decision, NextBestTime, Prediction } from '../forecast';
import type { CurrentGasReading } from './current-gas';
import { getEthPrice, type TokenPrice } from './eth-price';
import { getGasPredictions } from './gas-predictions';

/** Everything /api/dashboard serves, as domain values (`toDashboardBody` shapes the body). */
export interface Dashboard {
  currentGas: CurrentGasReading;
  decision: Decision;
  ethPrice: TokenPrice;
  nextBestWindow: NextBestTime | null;
  predictions: Prediction[];
  compactHistory: { timestamp: string; gasPrice: number }[];
  lastUpdated: string;
}

/**
 * Combines the live tiers, the 24-hour forecast and decision, the ETH price and the last day of
 * history. Every part comes from a cached service, so the store is read once per refresh.
 * @throws GasUnavailableError when no live or recent mainnet reading exists (from getCurrentGas).
 */
export async function getDashboard(deps: AppDeps): Promise<Dashboard> {
  const [forecast, price] = await Promise.all([getGasPredictions(deps, '24h'), getEthPrice(deps)]);
  return {
    currentGas: forecast.current,
    decision: forecast.decision,
    ethPrice: price,
    nextBestWindow: forecast.nextBestTime,
    predictions: forecast.predictions,
    // The 24-hour forecast's own history: the same hours the predictions were anchored on.
    compactHistory: forecast.historical,
    lastUpdated: forecast.lastUpdated,
  };
}
