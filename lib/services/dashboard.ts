import type { AppDeps } from '../deps';
import type { Decision, NextBestTime, Prediction } from '../forecast';
import { type EthPriceCompact, toEthPriceCompact } from '../schemas/eth-price';
import type { CurrentGasReading } from './current-gas';
import { getEthPrice } from './eth-price';
import { getForecastHistory, selectHourlyPoints } from './forecast-history';
import { getGasPredictions } from './gas-predictions';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Everything /api/dashboard serves, before the envelope (SPEC.md section 4, decision 10). */
export interface Dashboard {
  currentGas: CurrentGasReading;
  decision: Decision;
  ethPrice: EthPriceCompact;
  nextBestWindow: NextBestTime | null;
  predictions: Prediction[];
  compactHistory: { timestamp: string; gasPrice: number }[];
  lastUpdated: string;
}

/**
 * Combines the live tiers, the 24-hour forecast and decision, the ETH price and the last day of
 * history. Every part comes from a cached service, so the store is read once per refresh.
 */
export async function getDashboard(deps: AppDeps): Promise<Dashboard> {
  const [forecast, price, history] = await Promise.all([
    getGasPredictions(deps, '24h'),
    getEthPrice(deps),
    getForecastHistory(deps),
  ]);
  const since = Math.floor(deps.now() / HOUR_MS) * HOUR_MS - DAY_MS;
  return {
    currentGas: forecast.current,
    decision: forecast.decision,
    ethPrice: toEthPriceCompact(price),
    nextBestWindow: forecast.nextBestTime,
    predictions: forecast.predictions,
    compactHistory: selectHourlyPoints(history, since),
    lastUpdated: forecast.lastUpdated,
  };
}
