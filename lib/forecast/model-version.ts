import { FALLBACK_PROFILE } from './fallback-profile';
import { DEFAULT_FORECAST_PARAMS, type ForecastParams } from './params';

/**
 * The version of the forecaster's and the decision's code. Bump it in any change to that code
 * (`forecast-gas.ts`, `decision.ts` and what they call) that changes what a forecast or a decision
 * says: the scheduled back-test (cron/backtest-job.ts) then replays every stored hour again with the
 * new code instead of serving the old one's figures. A change to the parameters (`params.ts`) or to
 * the built-in profile (`fallback-profile.ts`) needs no bump: they are hashed into the model version.
 * Nor does a change to what a replay does not keep (the points' values and confidences, the
 * decision's recommendation and nextBestAt are kept: drizzle/schema.ts): the decision's confidence
 * for send_now changed on 2026-11-28 with no bump, every stored replay and figure unchanged.
 */
export const FORECASTER_VERSION = 1;

/**
 * The version of the model that makes forecasts with `params`: FORECASTER_VERSION and a hash of the
 * parameters and the built-in profile, such as `1-0c3f9a2e`. Stored beside each replayed forecast and
 * back-test summary, so that none made by another model is served as this one's.
 */
export function forecastModelVersion(params: Readonly<ForecastParams> = DEFAULT_FORECAST_PARAMS): string {
  // String(), not JSON: JSON writes Infinity (a parameter may be) as null.
  const entries = Object.entries(params)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${String(value)}`);
  const text = `${entries.join(';')}|${FALLBACK_PROFILE.join(',')}`;
  return `${FORECASTER_VERSION}-${fnv1a32(text)}`;
}

/** FNV-1a, 32 bits, of the UTF-16 code units of `text`, as 8 hex digits: short, stable, synchronous. */
function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
