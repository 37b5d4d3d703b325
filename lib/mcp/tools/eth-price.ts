import { EthPriceSchema, toEthPriceBody } from '../../schemas/eth-price';
import { getEthPrice, priceRetryAfterSeconds } from '../../services/eth-price';
import { defineTool, ToolUnavailableError } from '../tool';

/** get_eth_price: ETH/USD through the same fallback chain as GET /api/eth-price. */
export const ethPriceTool = defineTool({
  name: 'get_eth_price',
  title: 'ETH/USD price',
  description:
    'ETH price in USD with its 24-hour change in percent and 168 hourly prices of the last 7 days, read ' +
    'from CoinGecko, then Coinbase, then Kraken. `source` says whether the value is live, from the ' +
    '30-second cache, or a last-known-good value at most 5 minutes old (`stale-*`, with `staleAgeMs`).',
  input: {},
  output: EthPriceSchema.omit({ citation: true, tier: true }).shape,
  async run(deps) {
    const price = await getEthPrice(deps);
    if (price.usd === null) {
      // When the failed refresh is tried again; until 2026-11-28 always "about 30 seconds".
      const wait = priceRetryAfterSeconds(price, deps.now());
      throw new ToolUnavailableError(
        `ETH/USD price unavailable: no price source answered and no value of the last 5 minutes exists; retry after ${wait} seconds.`,
      );
    }
    const body = toEthPriceBody(price);
    const change =
      price.change24h === null ? 'unknown' : `${price.change24h > 0 ? '+' : ''}${price.change24h}%`;
    const age = price.staleAgeMs === undefined ? '' : `, ${Math.round(price.staleAgeMs / 1000)} s old`;
    return {
      data: body,
      summary: `ETH/USD ${price.usd} (24 h change ${change}; source ${price.source}${age}, read ${body.updatedAt}).`,
      updatedAt: price.updatedAt,
    };
  },
});
