import { type Asset, PriceBook, type PriceSim, toPriceSim } from './price-book';
import { jsonReply, type SimReply, startSimServer } from './sim-server';

/** Kraken: `/0/public/Ticker?pair=ETHUSD` (or XETHZUSD, POLUSD; route `ticker`). */
export type KrakenSim = PriceSim;

// Request pair names Kraken accepts -> the result key it answers with.
const PAIRS: Record<string, { key: string; asset: Asset }> = {
  ETHUSD: { key: 'XETHZUSD', asset: 'ETH' },
  XETHZUSD: { key: 'XETHZUSD', asset: 'ETH' },
  'ETH/USD': { key: 'XETHZUSD', asset: 'ETH' },
  POLUSD: { key: 'POLUSD', asset: 'POL' },
  'POL/USD': { key: 'POLUSD', asset: 'POL' },
};

function krakenError(status: number, ...errors: string[]): SimReply {
  return jsonReply(status, { error: errors });
}

/** Kraken prints prices with a fixed number of decimals per pair. */
function price(value: number, asset: Asset): string {
  return value.toFixed(asset === 'ETH' ? 2 : 5);
}

function tickerOf(asset: Asset, usd: number, sparkline: readonly number[], now: number) {
  const hoursToday = new Date(now).getUTCHours();
  const today = sparkline.slice(-(hoursToday + 1));
  const lastDay = sparkline.slice(-24);
  const open = today[0] ?? usd;
  const volumeDay = asset === 'ETH' ? 18_734.52 : 1_204_331.7;
  const fmt = (value: number) => price(value, asset);
  const avg = (values: readonly number[]) =>
    values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
  return {
    a: [fmt(usd * 1.00002), '4', '4.000'],
    b: [fmt(usd * 0.99998), '12', '12.000'],
    c: [fmt(usd), '0.01000000'],
    v: [((volumeDay * (hoursToday + 1)) / 24).toFixed(8), volumeDay.toFixed(8)],
    p: [fmt(avg(today)), fmt(avg(lastDay))],
    t: [Math.round((41_000 * (hoursToday + 1)) / 24), 41_000],
    l: [fmt(Math.min(...today, usd)), fmt(Math.min(...lastDay, usd))],
    h: [fmt(Math.max(...today, usd)), fmt(Math.max(...lastDay, usd))],
    o: fmt(open),
  };
}

/** Starts the Kraken simulator; its `url` is the origin. */
export async function startKrakenSim(options: { now: () => number; port?: number }): Promise<KrakenSim> {
  const book = new PriceBook({ ETH: 3012.1, POL: 0.18541 }, options.now);
  const server = await startSimServer(
    {
      keysOf: (request) => [request.path === '/0/public/Ticker' ? 'ticker' : 'unknown'],
      answer(request, faults) {
        if (request.path !== '/0/public/Ticker') return krakenError(404, 'EGeneral:Unknown method');
        const apiError = faults.take('rpc-error', ['ticker']);
        // Kraken reports its own errors with HTTP 200 and an error list.
        if (apiError) return krakenError(200, apiError.message ?? 'EService:Unavailable');
        const requested = (request.query.get('pair') ?? '').split(',').filter(Boolean);
        if (requested.length === 0) return krakenError(200, 'EGeneral:Invalid arguments');
        const result: Record<string, unknown> = {};
        for (const name of requested) {
          const pair = PAIRS[name.toUpperCase()];
          if (!pair) return krakenError(200, 'EQuery:Unknown asset pair');
          const quote = book.quote(pair.asset);
          const absurd = faults.take('absurd', ['ticker']);
          const usd = absurd ? Number(absurd.value ?? 1e9) : quote.usd;
          result[pair.key] = tickerOf(pair.asset, usd, quote.sparkline, options.now());
        }
        // A stale answer is one a cache in front of the API has held: its `Age` says how long.
        const stale = faults.take('stale', ['ticker']);
        return jsonReply(
          200,
          { error: [], result },
          stale ? { age: String(stale.seconds ?? 600) } : undefined,
        );
      },
      errorReply: (status) =>
        status === 429
          ? krakenError(429, 'EGeneral:Too many requests')
          : krakenError(500, 'EService:Unavailable'),
    },
    options.port,
  );
  return toPriceSim('kraken', server.origin, server, book);
}
