import { createPublicClient, formatGwei, http } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startUpstreams, type Upstreams } from '../upstreams';

let up: Upstreams;
const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  up = await startUpstreams();
});
afterEach(() => up.reset());
afterAll(() => up.close());

describe('Etherscan v2 gas oracle simulator', () => {
  const oracleUrl = (extra = '') =>
    `${up.etherscan.url}?chainid=1&module=gastracker&action=gasoracle&apikey=${up.env.ETHERSCAN_API_KEY}${extra}`;

  it('answers the real shape with gwei decimal strings from the same chain as the RPC providers', async () => {
    const { status, body } = await getJson(oracleUrl());
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: '1', message: 'OK' });
    const result = body.result as Record<string, string>;
    for (const key of ['SafeGasPrice', 'ProposeGasPrice', 'FastGasPrice', 'suggestBaseFee']) {
      expect(result[key]).toMatch(/^\d+(\.\d+)?$/);
    }
    expect(Number(result.SafeGasPrice)).toBeLessThanOrEqual(Number(result.ProposeGasPrice));
    expect(Number(result.ProposeGasPrice)).toBeLessThanOrEqual(Number(result.FastGasPrice));
    expect(result.gasUsedRatio?.split(',')).toHaveLength(5);
    const rpc = createPublicClient({ transport: http(up.mainnet[0]!.url) });
    // The chain's head moves every 12 s: the block the oracle names is the head, or one behind it if a
    // block arrived between the two calls, and its next base fee is the oracle's suggestion.
    const lastBlock = BigInt(result.LastBlock ?? '');
    const head = await rpc.getBlockNumber({ cacheTime: 0 });
    expect(head - lastBlock).toBeGreaterThanOrEqual(0n);
    expect(head - lastBlock).toBeLessThanOrEqual(1n);
    const history = await rpc.getFeeHistory({ blockCount: 1, blockNumber: lastBlock, rewardPercentiles: [] });
    expect(history.oldestBlock).toBe(lastBlock);
    expect(result.suggestBaseFee).toBe(formatGwei(history.baseFeePerGas[1]!));
    expect(up.etherscan.requests.byMethod).toEqual({ gasoracle: 1 });
  });

  it('answers its real error shapes for a bad key or chain, and takes set values', async () => {
    const noKey = await getJson(`${up.etherscan.url}?chainid=1&module=gastracker&action=gasoracle`);
    expect(noKey.body).toEqual({ status: '0', message: 'NOTOK', result: 'Invalid API Key' });
    const noChain = await getJson(oracleUrl().replace('chainid=1&', ''));
    expect(noChain.body).toMatchObject({ status: '0', message: 'NOTOK' });
    up.etherscan.setOracle({ SafeGasPrice: 0.512, ProposeGasPrice: '0.6', FastGasPrice: '1.25' });
    expect((await getJson(oracleUrl())).body.result).toMatchObject({
      SafeGasPrice: '0.512',
      ProposeGasPrice: '0.6',
      FastGasPrice: '1.25',
    });
  });
});

describe('Etherscan v2 proxy simulator (eth_getBlockByNumber)', () => {
  const blockUrl = (tag: string) =>
    `${up.etherscan.url}?chainid=1&module=proxy&action=eth_getBlockByNumber&tag=${tag}&boolean=false&apikey=${up.env.ETHERSCAN_API_KEY}`;
  const lastBlock = async () => {
    const oracle = await getJson(
      `${up.etherscan.url}?chainid=1&module=gastracker&action=gasoracle&apikey=${up.env.ETHERSCAN_API_KEY}`,
    );
    return Number((oracle.body.result as { LastBlock: string }).LastBlock);
  };

  it("answers JSON-RPC shaped with the oracle's block as the RPC providers serve it, and null past the head", async () => {
    const n = await lastBlock();
    const { status, body } = await getJson(blockUrl(`0x${n.toString(16)}`));
    expect(status).toBe(200);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 1 });
    const block = body.result as Record<string, unknown>;
    const rpc = createPublicClient({ transport: http(up.mainnet[0]!.url) });
    const same = await rpc.getBlock({ blockNumber: BigInt(n) });
    expect(block.number).toBe(`0x${n.toString(16)}`);
    expect(BigInt(block.timestamp as string)).toBe(same.timestamp);
    // boolean=false: transaction hashes only.
    expect((block.transactions as unknown[]).every((tx) => typeof tx === 'string')).toBe(true);
    expect((await getJson(blockUrl(`0x${(n + 100).toString(16)}`))).body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: null,
    });
    expect(up.etherscan.requests.byMethod).toMatchObject({ gasoracle: 1, eth_getBlockByNumber: 2 });
  });

  it("honours the faults per action: the proxy's rate limit as a JSON-RPC result, a lagging backend without the block", async () => {
    const n = await lastBlock();
    const tag = `0x${n.toString(16)}`;
    await up.etherscan.fault('rpc-error', { methods: ['eth_getBlockByNumber'] });
    expect((await getJson(blockUrl(tag))).body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: 'Max calls per sec rate limit reached (5/sec)',
    });
    expect(await lastBlock()).toBeGreaterThanOrEqual(n); // the oracle still answers
    await up.reset();
    await up.etherscan.fault('lag', { blocks: 10, methods: ['eth_getBlockByNumber'] });
    expect((await getJson(blockUrl(tag))).body.result).toBeNull();
    await up.reset();
    await up.etherscan.fault('stale', { seconds: 120, methods: ['eth_getBlockByNumber'] });
    expect((await getJson(blockUrl(tag))).body.result).toBeNull();
    expect((await getJson(blockUrl(`0x${(n - 20).toString(16)}`))).body.result).toMatchObject({
      number: `0x${(n - 20).toString(16)}`,
    });
    // A tag the node cannot parse: the node's JSON-RPC error, passed on.
    expect((await getJson(blockUrl('nonsense'))).body).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32602 },
    });
    await up.reset();
    up.etherscan.setBlock({ number: n - 1, timestamp: null });
    const changed = (await getJson(blockUrl(tag))).body.result as Record<string, unknown>;
    expect(changed.number).toBe(`0x${(n - 1).toString(16)}`);
    expect(changed).not.toHaveProperty('timestamp');
  });
});

describe('price simulators', () => {
  it('CoinGecko /coins/markets gives current price, 24 h change and a 168-value sparkline ending at it', async () => {
    const { status, body } = await getJson(
      `${up.coingecko.url}/coins/markets?vs_currency=usd&ids=ethereum,polygon-ecosystem-token&sparkline=true&price_change_percentage=24h`,
    );
    expect(status).toBe(200);
    const markets = body as unknown as Array<
      Record<string, unknown> & { sparkline_in_7d: { price: number[] } }
    >;
    expect(markets.map((m) => m.id)).toEqual(['ethereum', 'polygon-ecosystem-token']);
    const eth = markets[0]!;
    expect(eth.current_price).toBe(3012.45);
    expect(eth.sparkline_in_7d.price).toHaveLength(168);
    expect(eth.sparkline_in_7d.price.at(-1)).toBe(3012.45);
    const dayAgo = eth.sparkline_in_7d.price.at(-25)!;
    expect(eth.price_change_percentage_24h).toBeCloseTo(((3012.45 - dayAgo) / dayAgo) * 100, 3);
    expect(Date.now() - Date.parse(String(eth.last_updated))).toBeLessThan(120_000);
    expect(up.coingecko.requests.byMethod).toEqual({ markets: 1 });
  });

  it('CoinGecko /simple/price, stale readings and set prices', async () => {
    const url = `${up.coingecko.url}/simple/price?ids=ethereum,polygon-ecosystem-token&vs_currencies=usd&include_24hr_change=true&include_last_updated_at=true`;
    const { body } = await getJson(url);
    expect(body).toMatchObject({
      ethereum: { usd: 3012.45, usd_24h_change: expect.any(Number), last_updated_at: expect.any(Number) },
      'polygon-ecosystem-token': { usd: 0.1853 },
    });
    await up.coingecko.fault('stale');
    const stale = (await getJson(url)).body as Record<string, { last_updated_at: number }>;
    expect(Date.now() / 1000 - stale.ethereum!.last_updated_at).toBeGreaterThanOrEqual(600);
    up.coingecko.setPrice('ETH', { usd: 2500 });
    const markets = (
      await getJson(`${up.coingecko.url}/coins/markets?vs_currency=usd&ids=ethereum&sparkline=true`)
    ).body as unknown as Array<{ current_price: number; sparkline_in_7d: { price: number[] } }>;
    expect(markets[0]!.current_price).toBe(2500);
    expect(markets[0]!.sparkline_in_7d.price.at(-1)).toBe(2500);
  });

  it('Coinbase spot prices and its not_found error', async () => {
    expect((await getJson(`${up.coinbase.url}/v2/prices/ETH-USD/spot`)).body).toEqual({
      data: { amount: '3011.87', base: 'ETH', currency: 'USD' },
    });
    expect((await getJson(`${up.coinbase.url}/v2/prices/POL-USD/spot`)).body).toEqual({
      data: { amount: '0.1852', base: 'POL', currency: 'USD' },
    });
    const missing = await getJson(`${up.coinbase.url}/v2/prices/NOPE-USD/spot`);
    expect(missing).toMatchObject({ status: 404, body: { errors: [{ id: 'not_found' }] } });
    up.coinbase.setPrice('ETH', { usd: 2999.5 });
    expect((await getJson(`${up.coinbase.url}/v2/prices/ETH-USD/spot`)).body).toMatchObject({
      data: { amount: '2999.50' },
    });
  });

  it('Kraken ticker for ETHUSD and POLUSD and its unknown-pair error', async () => {
    const { body } = await getJson(`${up.kraken.url}/0/public/Ticker?pair=ETHUSD,POLUSD`);
    expect(body.error).toEqual([]);
    const result = body.result as Record<string, { c: string[]; o: string; a: string[]; b: string[] }>;
    expect(result.XETHZUSD?.c).toEqual(['3012.10', '0.01000000']);
    expect(Number(result.XETHZUSD?.a[0])).toBeGreaterThan(Number(result.XETHZUSD?.b[0]));
    expect(result.POLUSD?.c[0]).toBe('0.18541');
    expect(Number(result.XETHZUSD?.o)).toBeGreaterThan(2900);
    expect((await getJson(`${up.kraken.url}/0/public/Ticker?pair=FOOUSD`)).body).toEqual({
      error: ['EQuery:Unknown asset pair'],
    });
  });
});
