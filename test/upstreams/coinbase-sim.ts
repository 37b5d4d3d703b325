import { PriceBook, type PriceSim, toPriceSim } from './price-book';
import { jsonReply, type SimReply, type SimRequest, startSimServer } from './sim-server';

/** Coinbase: `/v2/prices/<BASE>-USD/spot` (route `spot`) for ETH and POL. */
export type CoinbaseSim = PriceSim;

const SPOT_PATH = /^\/v2\/prices\/([A-Za-z0-9]+)-([A-Za-z]+)\/spot$/;

function coinbaseError(status: number, id: string, message: string): SimReply {
  return jsonReply(status, { errors: [{ id, message }] });
}

/** Coinbase quotes fiat prices with cents, sub-dollar assets with four decimals. */
function formatAmount(usd: number): string {
  return Math.abs(usd) >= 1 ? usd.toFixed(2) : usd.toFixed(4);
}

/** Starts the Coinbase simulator; its `url` is the origin. */
export async function startCoinbaseSim(options: { now: () => number; port?: number }): Promise<CoinbaseSim> {
  // A few cents off the aggregator, as exchange quotes are.
  const book = new PriceBook({ ETH: 3011.87, POL: 0.1852 }, options.now);
  const server = await startSimServer(
    {
      keysOf: (request: SimRequest) => [SPOT_PATH.test(request.path) ? 'spot' : 'unknown'],
      answer(request, faults) {
        const match = SPOT_PATH.exec(request.path);
        if (!match) return coinbaseError(404, 'not_found', 'Not found');
        const apiError = faults.take('rpc-error', ['spot']);
        if (apiError) return coinbaseError(400, 'invalid_request', apiError.message ?? 'Invalid request');
        const base = match[1]!.toUpperCase();
        const currency = match[2]!.toUpperCase();
        if (base !== 'ETH' && base !== 'POL') return coinbaseError(404, 'not_found', 'Invalid base currency');
        if (currency !== 'USD') return coinbaseError(404, 'not_found', 'Invalid currency');
        const absurd = faults.take('absurd', ['spot']);
        const usd = absurd ? Number(absurd.value ?? 1e9) : book.quote(base).usd;
        // A stale answer is one a cache in front of the API has held: its `Age` says how long.
        const stale = faults.take('stale', ['spot']);
        const headers = stale ? { age: String(stale.seconds ?? 600) } : undefined;
        return jsonReply(200, { data: { amount: formatAmount(usd), base, currency } }, headers);
      },
      errorReply: (status) =>
        status === 429
          ? coinbaseError(429, 'rate_limit_exceeded', 'Too many requests')
          : coinbaseError(500, 'internal_server_error', 'Internal server error'),
    },
    options.port,
  );
  return toPriceSim('coinbase', server.origin, server, book);
}
