import { settleWithin } from '../async';
import { type AppDeps, getState } from '../deps';
import {
  type ForecastBasis,
  type ForecastHorizon,
  forecastGas,
  type GasForecast,
  HORIZON_HOURS,
  prepareForecast,
} from '../forecast';
import { type CurrentGasReading, getCurrentGas, MAX_STALE_MS, serveReading } from './current-gas';
import { getEthPrice } from './eth-price';
import { type ForecastHistory, getForecastHistory, selectHourlyPoints } from './forecast-history';

const TTL_MS = 30_000;
const PRICE_WAIT_MS = 250;
const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;

/** Everything /api/gas-predictions serves, as domain values (`toGasPredictionsBody` shapes the body). */
export interface GasPredictions extends GasForecast {
  current: CurrentGasReading;
  historical: { timestamp: string; gasPrice: number }[];
  timeframe: ForecastHorizon;
  dataPoints: number;
  lastUpdated: string;
}

/**
 * Forecasts the coming hours for a horizon from the stored history and the live reading, once per
 * 30 s per horizon and process (sooner when the hour turns or its mainnet reading turns 5 minutes
 * old); the decision also weighs the saving in USD when the ETH price has
 * a value within a moment. An unreachable store is not an error: the built-in profile stands in.
 * @throws GasUnavailableError when no live or recent mainnet reading exists (from getCurrentGas).
 */
export async function getGasPredictions(deps: AppDeps, timeframe: ForecastHorizon): Promise<GasPredictions> {
  const forecast = await makeGasPredictions(deps, timeframe);
  // The reading is served as /api/gas would serve it now (serveReading): a last good one, or one past
  // its live window while the forecast made from it is cached, has its max fees aged at every answer.
  // The same object while the aged reading is (ageReading reuses it), so the dashboard's assembled
  // answer and the rendered bytes are reused too.
  const current = serveReading(forecast.current, deps.now());
  if (current === forecast.current) return forecast;
  const last = servedForecasts.get(forecast);
  if (last?.current === current) return last;
  const served = { ...forecast, current };
  servedForecasts.set(forecast, served);
  return served;
}

/** Each forecast's last copy served with an aged reading. */
const servedForecasts = new WeakMap<GasPredictions, GasPredictions>();

function makeGasPredictions(deps: AppDeps, timeframe: ForecastHorizon): Promise<GasPredictions> {
  const key = gasPredictionsCacheKey(timeframe);
  // Points start at the next whole hour (SPEC decision 8): once the hour turns, a forecast made
  // before it starts at the hour now under way, however young it is, so it is made again.
  // The reading it was made from is served for no longer than any other (SPEC decision 7): once a
  // last good reading turns 5 minutes old, the forecast is made again, from a newer reading or none.
  const cached = deps.cache.peek<GasPredictions>(key)?.value;
  const made = cached?.predictions[0]?.timestamp;
  const now = deps.now();
  if (
    cached &&
    ((made !== undefined && Date.parse(made) !== nextHourOf(now)) ||
      now - Date.parse(cached.current.updatedAt) > MAX_STALE_MS)
  ) {
    deps.cache.delete(key);
  }
  return deps.cache.get(key, TTL_MS, async () => {
    const [current, history, price] = await Promise.all([
      getCurrentGas(deps),
      getForecastHistory(deps),
      // The USD floor is a refinement: a price that is slow to come is not waited for.
      settleWithin(getEthPrice(deps), PRICE_WAIT_MS).catch(() => ({ usd: null })),
    ]);
    const now = deps.now();
    const input = {
      history: history.hours,
      current,
      now,
      horizon: timeframe,
      ethUsd: ethUsdFor(deps, price.usd),
    };
    const forecast = forecastGas(input, undefined, basisFor(deps, history, now, timeframe));
    // As many hours back as the horizon looks ahead, the hour under way the last of them.
    const spanStart = nextHourOf(now) - HORIZON_HOURS[timeframe] * HOUR_MS;
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

/** The cache key of a horizon's forecast. */
export function gasPredictionsCacheKey(timeframe: ForecastHorizon): string {
  return `gas-predictions:${timeframe}`;
}

/** The start of the hour after the one holding `ms`: where a forecast made at `ms` begins. */
function nextHourOf(ms: number): number {
  return (Math.floor(ms / HOUR_MS) + 1) * HOUR_MS;
}

/**
 * The forecast's history-only part (model fit and error replay, most of its CPU), prepared once per
 * hour and horizon in each process rather than on every 30-second refresh. It is prepared again
 * when the hours before the current one change in number: the store came back or went away, or an
 * import or backfill filled a gap. (A value rewritten in place is picked up at the next hour.)
 */
function basisFor(
  deps: AppDeps,
  history: ForecastHistory,
  now: number,
  horizon: ForecastHorizon,
): ForecastBasis {
  const nowHour = Math.floor(now / HOUR_MS);
  const pastHours = history.hours.filter((point) => point.time < nowHour * HOUR_MS).length;
  // A history turning 7 days old within the hour is prepared again then, to learn its own shape.
  const young = history.startedAt !== null && now - history.startedAt < WEEK_MS;
  const stamp = `${nowHour}:${pastHours}:${young}`;
  const memo = getState(deps, `forecast-basis:${horizon}`, () => ({
    stamp: '',
    basis: null as ForecastBasis | null,
  }));
  if (memo.stamp !== stamp || !memo.basis) {
    memo.basis = prepareForecast(history.hours, now, horizon, undefined, history.startedAt ?? undefined);
    memo.stamp = stamp;
  }
  return memo.basis;
}

/**
 * The ETH/USD the decision judges a saving in: this refresh's price, else the last one this process
 * saw (a slow or failing price source must not switch the USD floor off and on between refreshes),
 * else none, and the decision then weighs the relative and gwei floors alone.
 */
function ethUsdFor(deps: AppDeps, usd: number | null): number | null {
  const last = getState(deps, 'decision-eth-usd', () => ({ usd: null as number | null }));
  if (usd !== null && usd > 0) last.usd = usd;
  return last.usd;
}
