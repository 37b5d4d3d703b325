export { decideSendOrWait } from './decision';
export { type ForecastBasis, forecastGas, prepareForecast } from './forecast-gas';
export { DEFAULT_FORECAST_PARAMS, type ForecastParams } from './params';
export {
  type Decision,
  type ForecastHorizon,
  type ForecastInput,
  type GasForecast,
  type GasTiers,
  HORIZON_HOURS,
  type HourlyGasPoint,
  type NextBestTime,
  type Prediction,
} from './types';
