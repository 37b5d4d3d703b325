import { createRoute } from '@hono/zod-openapi';
import { publicCache } from '../lib/http/cache-control';
import { buildEnvelope, publicBaseUrl } from '../lib/http/envelope';
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

/** Registers GET /api/eth-price (SPEC.md 2.7, 3, 4.2 rule 4, 7, decisions 2-4). */
export function registerEthPrice(app: ApiApp): void {
  app.openapi(route, async (c) => {
    const deps = c.var.deps;
    const price = await getEthPrice(deps);
    if (price.source === 'unavailable') c.header('Cache-Control', publicCache(SOFT_FAIL_CACHE_SECONDS));
    return c.json(
      {
        ...buildEnvelope(price.updatedAt, publicBaseUrl(deps.config.publicBaseUrl, c.req.url)),
        ...toEthPriceBody(price),
      },
      200,
    );
  });
}
