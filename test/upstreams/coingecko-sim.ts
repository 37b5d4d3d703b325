import type { FaultSet } from './faults';
import { type Asset, PriceBook, type PriceSim, type Quote, toPriceSim } from './price-book';
import { jsonReply, type SimReply, type SimRequest, startSimServer } from './sim-server';

/** CoinGecko: `/api/v3/coins/markets` (route `markets`), `/api/v3/simple/price` (`simple-price`), `/api/v3/ping`. */
export type CoinGeckoSim = PriceSim;

interface CoinInfo {
  asset: Asset;
  symbol: string;
  name: string;
  image: string;
  circulatingSupply: number;
  totalSupply: number;
  ath: number;
  athDate: string;
  atl: number;
  atlDate: string;
  rank: number;
}

// Static coin facts as /coins/markets reports them (supplies rounded, all-time highs and lows approximate).
const COINS: Record<string, CoinInfo> = {
  ethereum: {
    asset: 'ETH',
    symbol: 'eth',
    name: 'Ethereum',
    image: 'https://coin-images.coingecko.com/coins/images/279/large/ethereum.png?1696501628',
    circulatingSupply: 120_700_000,
    totalSupply: 120_700_000,
    ath: 4946.05,
    athDate: '2025-08-24T19:21:03.333Z',
    atl: 0.432979,
    atlDate: '2015-10-20T00:00:00.000Z',
    rank: 2,
  },
  'polygon-ecosystem-token': {
    asset: 'POL',
    symbol: 'pol',
    name: 'POL (ex-MATIC)',
    image: 'https://coin-images.coingecko.com/coins/images/32440/large/polygon.png?1698233684',
    circulatingSupply: 10_500_000_000,
    totalSupply: 10_500_000_000,
    ath: 1.29,
    athDate: '2024-03-13T19:40:19.523Z',
    atl: 0.1,
    atlDate: '2025-10-10T21:15:00.000Z',
    rank: 60,
  },
};

const RATE_LIMIT_MESSAGE =
  "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits.";

function marketObject(id: string, coin: CoinInfo, quote: Quote, withSparkline: boolean, with24h: boolean) {
  const lastDay = quote.sparkline.slice(-24);
  const dayAgoPrice = quote.usd / (1 + quote.change24h / 100);
  const marketCap = Math.round(quote.usd * coin.circulatingSupply);
  return {
    id,
    symbol: coin.symbol,
    name: coin.name,
    image: coin.image,
    current_price: quote.usd,
    market_cap: marketCap,
    market_cap_rank: coin.rank,
    fully_diluted_valuation: Math.round(quote.usd * coin.totalSupply),
    total_volume: Math.round(marketCap * 0.06),
    high_24h: Math.max(...lastDay, quote.usd),
    low_24h: Math.min(...lastDay, quote.usd),
    price_change_24h: quote.usd - dayAgoPrice,
    price_change_percentage_24h: quote.change24h,
    market_cap_change_24h: Math.round(marketCap - dayAgoPrice * coin.circulatingSupply),
    market_cap_change_percentage_24h: quote.change24h,
    circulating_supply: coin.circulatingSupply,
    total_supply: coin.totalSupply,
    max_supply: null,
    ath: coin.ath,
    ath_change_percentage: ((quote.usd - coin.ath) / coin.ath) * 100,
    ath_date: coin.athDate,
    atl: coin.atl,
    atl_change_percentage: ((quote.usd - coin.atl) / coin.atl) * 100,
    atl_date: coin.atlDate,
    roi: null,
    last_updated: new Date(quote.updatedAt).toISOString(),
    ...(withSparkline ? { sparkline_in_7d: { price: quote.sparkline } } : {}),
    ...(with24h ? { price_change_percentage_24h_in_currency: quote.change24h } : {}),
  };
}

/** Starts the CoinGecko simulator; its `url` is `${origin}/api/v3`. */
export async function startCoinGeckoSim(options: {
  now: () => number;
  port?: number;
}): Promise<CoinGeckoSim> {
  const book = new PriceBook({ ETH: 3012.45, POL: 0.1853 }, options.now);

  function quoteOf(asset: Asset, faults: FaultSet, keys: string[]): Quote {
    const quote = book.quote(asset);
    const stale = faults.take('stale', keys);
    const absurd = faults.take('absurd', keys);
    return {
      ...quote,
      ...(stale ? { updatedAt: options.now() - (stale.seconds ?? 600) * 1000 } : {}),
      ...(absurd ? { usd: Number(absurd.value ?? 1e9) } : {}),
    };
  }

  function answer(request: SimRequest, faults: FaultSet): SimReply {
    const route = routeOf(request);
    if (!route) return jsonReply(404, { error: 'Incorrect path. Please check https://docs.coingecko.com/' });
    if (route === 'ping') return jsonReply(200, { gecko_says: '(V3) To the Moon!' });
    const apiError = faults.take('rpc-error', [route]);
    if (apiError) {
      return jsonReply(401, {
        status: { error_code: 10002, error_message: apiError.message ?? 'API Key Missing' },
      });
    }
    const q = request.query;
    const ids = (q.get('ids') ?? '').split(',').map((id) => id.trim().toLowerCase());
    const known = ids.filter((id) => id in COINS);
    if (route === 'markets') {
      const currency = q.get('vs_currency');
      if (!currency) return jsonReply(400, { error: 'Missing parameter vs_currency' });
      if (currency.toLowerCase() !== 'usd') return jsonReply(400, { error: 'invalid vs_currency' });
      const list = (q.has('ids') ? known : Object.keys(COINS)).map((id) => ({ id, coin: COINS[id]! }));
      list.sort((a, b) => a.coin.rank - b.coin.rank);
      const with24h = (q.get('price_change_percentage') ?? '').split(',').includes('24h');
      const body = list.map(({ id, coin }) =>
        marketObject(id, coin, quoteOf(coin.asset, faults, [route]), q.get('sparkline') === 'true', with24h),
      );
      return jsonReply(200, body);
    }
    const currencies = q.get('vs_currencies');
    if (!q.get('ids') || !currencies)
      return jsonReply(400, { error: 'Missing parameter ids or vs_currencies' });
    const body: Record<string, Record<string, number>> = {};
    for (const id of known) {
      const quote = quoteOf(COINS[id]!.asset, faults, [route]);
      if (!currencies.toLowerCase().split(',').includes('usd')) continue;
      body[id] = {
        usd: quote.usd,
        ...(q.get('include_24hr_change') === 'true' ? { usd_24h_change: quote.change24h } : {}),
        ...(q.get('include_last_updated_at') === 'true'
          ? { last_updated_at: Math.floor(quote.updatedAt / 1000) }
          : {}),
      };
    }
    return jsonReply(200, body);
  }

  const server = await startSimServer(
    {
      keysOf: (request) => [routeOf(request) ?? 'unknown'],
      answer,
      errorReply: (status) =>
        status === 429
          ? jsonReply(429, { status: { error_code: 429, error_message: RATE_LIMIT_MESSAGE } })
          : jsonReply(500, { status: { error_code: 500, error_message: 'Internal Server Error' } }),
    },
    options.port,
  );
  return toPriceSim('coingecko', `${server.origin}/api/v3`, server, book);
}

function routeOf(request: SimRequest): 'markets' | 'simple-price' | 'ping' | undefined {
  switch (request.path) {
    case '/api/v3/coins/markets':
      return 'markets';
    case '/api/v3/simple/price':
      return 'simple-price';
    case '/api/v3/ping':
      return 'ping';
    default:
      return undefined;
  }
}
