/** Gas tiers in gwei. */
export interface GasTiers {
  low: number;
  average: number;
  high: number;
}

/** One stored hourly aggregate: `time` is the start of the hour in epoch milliseconds. */
export interface HourlyGasPoint extends GasTiers {
  time: number;
}

/** Forecast horizons of gas-predictions (SPEC 4.1). */
export type ForecastHorizon = '6h' | '12h' | '24h' | '7d';

/** Hourly points per horizon, counted from the next whole hour (SPEC decision 8). */
export const HORIZON_HOURS: Readonly<Record<ForecastHorizon, number>> = {
  '6h': 6,
  '12h': 12,
  '24h': 24,
  '7d': 168,
};

/** What the forecaster needs: stored history (oldest first, gaps allowed), the live reading, the clock. */
export interface ForecastInput {
  history: readonly HourlyGasPoint[];
  current: GasTiers;
  now: number;
  horizon: ForecastHorizon;
  /** ETH/USD when a reading exists: the decision then also weighs a saving in USD. */
  ethUsd?: number | null;
}

/** One hourly forecast point (SPEC 2.4). */
export interface Prediction extends GasTiers {
  timestamp: string;
  isLowFeeWindow: boolean;
  confidence: number;
}

/** The cheapest predicted hour when it is cheaper than now (SPEC 2.5). */
export interface NextBestTime {
  timestamp: string;
  gasPrices: GasTiers;
  confidence: number;
}

/** Send-or-wait advice (SPEC 2.6, decision 1). */
export interface Decision {
  recommendation: 'wait' | 'send_now';
  /** Percent (12.5 means 12.5 %); 0 for `send_now`. */
  expectedSavingsPct: number;
  /** Expected average-tier gwei at `nextBestAt`. */
  expectedGas: number;
  nextBestEtaMinutes: number;
  nextBestAt: string;
  confidence: number;
}

/** Everything the forecaster returns for one request. */
export interface GasForecast {
  predictions: Prediction[];
  /** True when less than 7 days of history exist and the built-in profile stood in. */
  usingFallbackData: boolean;
  nextBestTime: NextBestTime | null;
  decision: Decision;
}
