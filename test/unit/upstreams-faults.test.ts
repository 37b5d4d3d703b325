import { createPublicClient, http, parseAbi } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GAS_PRICE_ORACLE, type Sim, startUpstreams, type Upstreams } from '../upstreams';

let up: Upstreams;
const client = (url: string) => createPublicClient({ transport: http(url, { retryCount: 0 }) });
const rpc = (url: string, method: string, params: unknown[] = [], signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    ...(signal ? { signal } : {}),
  });

beforeAll(async () => {
  up = await startUpstreams();
});
afterEach(() => up.reset());
afterAll(() => up.close());

/** A GET that each HTTP simulator answers normally. */
function probeUrl(sim: Sim): string {
  if (sim === up.etherscan)
    return `${sim.url}?chainid=1&module=gastracker&action=gasoracle&apikey=${up.env.ETHERSCAN_API_KEY}`;
  if (sim === up.coingecko) return `${sim.url}/simple/price?ids=ethereum&vs_currencies=usd`;
  if (sim === up.coinbase) return `${sim.url}/v2/prices/ETH-USD/spot`;
  return `${sim.url}/0/public/Ticker?pair=ETHUSD`;
}

describe('simulator faults: connection level', () => {
  it('refuse really closes the port (ECONNREFUSED) and reset listens again on the same port', async () => {
    const sim = up.mainnet[0]!;
    await sim.fault('refuse');
    await expect(rpc(sim.url, 'eth_chainId')).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    await sim.reset();
    expect((await rpc(sim.url, 'eth_chainId')).status).toBe(200);
    for (const http of [up.etherscan, up.coingecko, up.coinbase, up.kraken]) {
      await http.fault('refuse');
      await expect(fetch(probeUrl(http))).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    }
    await up.reset();
    for (const http of [up.etherscan, up.coingecko, up.coinbase, up.kraken]) {
      expect((await fetch(probeUrl(http))).status).toBe(200);
    }
  });

  it('hang accepts the request and never answers', async () => {
    for (const sim of [up.l2.base[0]!, up.etherscan, up.coingecko, up.coinbase, up.kraken]) {
      await sim.fault('hang');
      const request =
        sim === up.l2.base[0]
          ? rpc(sim.url, 'eth_gasPrice', [], AbortSignal.timeout(150))
          : fetch(probeUrl(sim), { signal: AbortSignal.timeout(150) });
      await expect(request).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(sim.requests.total).toBe(1);
    }
  });

  it('delay answers late; a short abort gives up first', async () => {
    const sim = up.mainnet[1]!;
    await sim.fault('delay', { ms: 5000 });
    await expect(rpc(sim.url, 'eth_blockNumber', [], AbortSignal.timeout(100))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    await sim.fault('delay', { ms: 10 });
    expect((await rpc(sim.url, 'eth_blockNumber')).status).toBe(200);
  });
});

describe('simulator faults: HTTP level', () => {
  it("http-500 and http-429 carry each provider's error body, 429 with Retry-After", async () => {
    const sim = up.mainnet[0]!;
    await sim.fault('http-500');
    expect((await rpc(sim.url, 'eth_chainId')).status).toBe(500);
    // The 500 carries a JSON-RPC error body, which viem surfaces as such.
    await expect(client(sim.url).getChainId()).rejects.toMatchObject({ code: -32603 });
    await sim.fault('http-429', { retryAfter: 7 });
    const limited = await rpc(sim.url, 'eth_chainId');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toMatchObject({ error: { code: -32005 } });

    const bodies = new Map<Sim, unknown>([
      [up.etherscan, { status: '0', message: 'NOTOK', result: 'Max rate limit reached' }],
      [up.coingecko, { status: { error_code: 429, error_message: expect.stringContaining('Rate Limit') } }],
      [up.coinbase, { errors: [{ id: 'rate_limit_exceeded' }] }],
      [up.kraken, { error: ['EGeneral:Too many requests'] }],
    ]);
    for (const [http, body] of bodies) {
      await http.fault('http-429');
      const res = await fetch(probeUrl(http));
      expect([res.status, res.headers.get('retry-after')]).toEqual([429, '30']);
      expect(await res.json()).toMatchObject(body as object);
      await http.fault('http-500');
      expect((await fetch(probeUrl(http))).status).toBe(500);
    }
  });

  it("batch-limit refuses a batch of more than 3 calls as dRPC's free tier does, and answers smaller ones", async () => {
    const sim = up.l2.optimism[0]!;
    await sim.fault('batch-limit');
    const batch = (size: number) =>
      fetch(sim.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          Array.from({ length: size }, (_, i) => ({
            jsonrpc: '2.0',
            id: i,
            method: 'eth_chainId',
            params: [],
          })),
        ),
      });
    const refused = await batch(4);
    expect(refused.status).toBe(500);
    expect(await refused.json()).toMatchObject({
      error: { code: 31, message: expect.stringMatching(/^Batch of more than 3 requests are not allowed/) },
    });
    const answered = await batch(3);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual([0, 1, 2].map((id) => ({ jsonrpc: '2.0', id, result: '0xa' })));
    // Single requests are not batches: always answered.
    expect((await rpc(sim.url, 'eth_chainId')).status).toBe(200);
  });

  it('malformed sends a body that is not JSON', async () => {
    for (const sim of [up.l2.polygon[0]!, up.etherscan, up.coingecko, up.coinbase, up.kraken]) {
      await sim.fault('malformed');
      const res = sim === up.l2.polygon[0] ? await rpc(sim.url, 'eth_gasPrice') : await fetch(probeUrl(sim));
      expect(res.status).toBe(200);
      await expect(res.json()).rejects.toThrow(SyntaxError);
    }
    await up.l2.polygon[0]!.fault('malformed', { body: '<html>Bad gateway</html>' });
    await expect(client(up.l2.polygon[0]!.url).getGasPrice()).rejects.toThrow();
  });
});

describe('simulator faults: data level', () => {
  it('rpc-error answers a JSON-RPC error, optionally only for some methods', async () => {
    const base = up.l2.base[0]!;
    await base.fault('rpc-error', { methods: ['eth_call'] });
    const c = client(base.url);
    expect(await c.getGasPrice()).toBe(6_000_000n);
    const abi = parseAbi(['function getL1Fee(bytes) view returns (uint256)']);
    await expect(
      c.readContract({ address: GAS_PRICE_ORACLE, abi, functionName: 'getL1Fee', args: ['0x01'] }),
    ).rejects.toThrow(/limit exceeded/);
    await up.mainnet[2]!.fault('rpc-error', { code: -32603, message: 'header not found' });
    await expect(client(up.mainnet[2]!.url).getBlockNumber()).rejects.toMatchObject({ code: -32603 });

    await up.etherscan.fault('rpc-error', { message: 'Invalid API Key' });
    expect(await (await fetch(probeUrl(up.etherscan))).json()).toEqual({
      status: '0',
      message: 'NOTOK',
      result: 'Invalid API Key',
    });
    await up.kraken.fault('rpc-error');
    expect(await (await fetch(probeUrl(up.kraken))).json()).toEqual({ error: ['EService:Unavailable'] });
  });

  it('wrong-chain, stale and lag bend the chain as a broken provider would', async () => {
    const [first, second] = up.mainnet;
    await first!.fault('wrong-chain');
    expect(await client(first!.url).getChainId()).toBe(11_155_111);
    await up.l2.arbitrum[0]!.fault('wrong-chain');
    expect(await client(up.l2.arbitrum[0]!.url).getChainId()).toBe(1);

    await second!.fault('stale');
    const staleBlock = await client(second!.url).getBlock();
    expect(Number(staleBlock.timestamp)).toBeLessThan(Date.now() / 1000 - 590);

    await first!.fault('lag', { blocks: 4 });
    const [lagging, healthy] = await Promise.all([
      client(first!.url).getBlockNumber(),
      client(up.mainnet[2]!.url).getBlockNumber(),
    ]);
    expect(Number(healthy - lagging)).toBeGreaterThanOrEqual(4);
    expect(Number(healthy - lagging)).toBeLessThanOrEqual(5);

    await up.etherscan.fault('lag', { blocks: 20 });
    const oracle = (await (await fetch(probeUrl(up.etherscan))).json()) as { result: { LastBlock: string } };
    expect(Number(healthy) - Number(oracle.result.LastBlock)).toBeGreaterThanOrEqual(19);
  });

  it('absurd reports absurd values everywhere, zero and negative included', async () => {
    const sim = up.mainnet[0]!;
    await sim.fault('absurd');
    const c = client(sim.url);
    expect(await c.getGasPrice()).toBe(10n ** 16n);
    const history = await c.getFeeHistory({ blockCount: 2, rewardPercentiles: [50] });
    expect(history.baseFeePerGas).toEqual([10n ** 16n, 10n ** 16n, 10n ** 16n]);
    await up.l2.optimism[0]!.fault('absurd', { value: 0n });
    expect(await client(up.l2.optimism[0]!.url).getGasPrice()).toBe(0n);

    await up.coingecko.fault('absurd');
    expect(await (await fetch(probeUrl(up.coingecko))).json()).toEqual({ ethereum: { usd: 1e9 } });
    await up.coinbase.fault('absurd', { value: -5 });
    expect(await (await fetch(probeUrl(up.coinbase))).json()).toMatchObject({ data: { amount: '-5.00' } });
    await up.kraken.fault('absurd', { value: 0 });
    const ticker = (await (await fetch(probeUrl(up.kraken))).json()) as {
      result: { XETHZUSD: { c: string[] } };
    };
    expect(ticker.result.XETHZUSD.c[0]).toBe('0.00');
    await up.etherscan.fault('absurd');
    const oracle = (await (await fetch(probeUrl(up.etherscan))).json()) as { result: Record<string, string> };
    expect(oracle.result.FastGasPrice).toBe('10000000');
  });

  it('times limits a fault to the next N requests, and reset clears faults and counters', async () => {
    const sim = up.mainnet[1]!;
    await sim.fault('http-500', { times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await rpc(sim.url, 'eth_blockNumber')).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(sim.requests.byMethod.eth_blockNumber).toBe(3);
    await sim.fault('hang');
    await up.reset();
    expect(sim.requests).toMatchObject({ total: 0, byMethod: {} });
    expect((await rpc(sim.url, 'eth_blockNumber')).status).toBe(200);
  });
});
