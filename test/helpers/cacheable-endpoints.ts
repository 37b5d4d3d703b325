/**
 * One request for every cacheable GET endpoint (valid parameters where it takes some): what the
 * conditional-request tests and the throughput benchmark both walk through.
 */
export const CACHEABLE_REQUESTS = [
  '/api/gas',
  '/api/eth-price',
  '/api/l2-gas',
  '/api/gas-history?range=1d',
  '/api/gas-predictions?timeframe=24h',
  '/api/dashboard',
  '/api/l2-gas-history?network=base&hours=24',
  '/api/forecast-accuracy?window=7d',
  '/openapi.json',
] as const;
