import { createRoute } from '@hono/zod-openapi';
import { publicCache } from '../lib/http/cache-control';
import { envelopedAnswer, serveCached } from '../lib/http/cached-answer';
import { EthPriceSchema, toEthPriceBody } from '../lib/schemas/eth-price';
import { getEthPrice, LAST_GOOD_MAX_AGE_MS, PRICE_DEADLINE_MS } from '../lib/services/eth-price';
import type { ApiApp } from './app-env';

/** Soft-fail answers are edge-cached for the normal cadence (SPEC.md 3 and decision 12). */
const SOFT_FAIL_CACHE_SECONDS = 30;

const route = createRoute({
  method: 'get',
  path: '/api/eth-price',
  summary: 'ETH/USD price',
  description:
    'ETH price in USD with its 24-hour change and 7-day hourly sparkline, read through a fallback chain: ' +
    'CoinGecko (`aggregator`), then Coinbase (`exchange_a`), then Kraken (`exchange_b`), refreshed every 30 s. ' +
    `The whole chain answers within ${PRICE_DEADLINE_MS / 1000} s. When every source fails, the last-known-good ` +
    `value (at most ${LAST_GOOD_MAX_AGE_MS / 60_000} minutes old) is served with a \`stale-*\` label, else ` +
    '`usd: null` with `source: "unavailable"`. This endpoint never answers 5xx.',
  responses: {
    200: {
      description: 'The price, live, cached, last-known-good or unavailable (see `source`).',
      content: { 'application/json': { schema: EthPriceSchema } },
    },
  },
});

/** The price; a soft failure keeps the normal cadence, served through the fast path on the Node host. */
const answer = envelopedAnswer({
  read: (deps) => getEthPrice(deps),
  toBody: toEthPriceBody,
  updatedAt: (price) => price.updatedAt,
  cacheControl: (price) =>
    price.source === 'unavailable' ? publicCache(SOFT_FAIL_CACHE_SECONDS) : undefined,
});

/** Registers GET /api/eth-price (SPEC.md 2.7, 3, 4.2 rule 4, 7, decisions 2-4). */
export function registerEthPrice(app: ApiApp): void {
  app.openapi(route, (c) => serveCached(c, answer, undefined));
}
