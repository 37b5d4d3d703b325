import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import worker, { type Env } from '../../functions/index';
import { TOOL_NAMES } from '../../lib/mcp/tools';

const ENDPOINT = 'https://gas.test/api/mcp';
const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
// Port 9 (discard) on loopback refuses connections: every upstream fails at once, deterministically.
// workerd prints "uncaught exception ... Network connection lost" for every refused fetch even when
// the rejection is caught (a bare `await fetch(...).catch(...)` prints it too): noise, not a failure.
const DOWN = 'http://127.0.0.1:9';
const SECRET = 'worker-secret-key-0123456789';
const downEnv: Env = {
  ...env,
  MAINNET_RPC_URLS: `${DOWN}/v2/${SECRET}`,
  ARBITRUM_RPC_URLS: `${DOWN}/arb/${SECRET}`,
  OPTIMISM_RPC_URLS: `${DOWN}/op/${SECRET}`,
  BASE_RPC_URLS: `${DOWN}/base/${SECRET}`,
  POLYGON_RPC_URLS: `${DOWN}/polygon/${SECRET}`,
  ETHERSCAN_API_URL: `${DOWN}/etherscan`,
  ETHERSCAN_API_KEY: SECRET,
  COINGECKO_API_URL: `${DOWN}/coingecko`,
  COINBASE_API_URL: `${DOWN}/coinbase`,
  KRAKEN_API_URL: `${DOWN}/kraken`,
};

/** Runs one request through the Worker's own fetch handler in workerd. */
async function callWorker(request: Request, bindings: Env = env): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, bindings, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** An official SDK client whose transport reaches the Worker through its fetch handler. */
async function connect(bindings: Env = env): Promise<Client> {
  const client = new Client({ name: 'workerd-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(ENDPOINT), {
      fetch: (input, init) => callWorker(new Request(input, init), bindings),
    }),
  );
  return client;
}

const post = (body: string) => callWorker(new Request(ENDPOINT, { method: 'POST', headers: HEADERS, body }));

describe('MCP endpoint on the Worker in workerd', () => {
  it('initializes and lists the eight tools', async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe('gas-fee-api');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
    await client.close();
  });

  it('answers malformed JSON with -32700 and a non-JSON-RPC body with -32600', async () => {
    const parse = await post('{"jsonrpc":');
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const invalid = await post('{"hello": "world"}');
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('answers an unknown method with -32601', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 3, "method": "prompts/list"}');
    expect(await res.json()).toMatchObject({ id: 3, error: { code: -32601 } });
  });

  it('answers an unknown tool with -32602 listing the tools, and bad arguments with the allowed values', async () => {
    const client = await connect();
    const error = (await client
      .callTool({ name: 'get_gas', arguments: {} })
      .catch((e: unknown) => e)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('get_current_gas');
    const bad = await client.callTool({ name: 'get_gas_history', arguments: { range: '90d' } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('range must be one of');
    await client.close();
  });

  it('answers a body over 64 KiB with 413 and GET with 405', async () => {
    const big = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(70_000) } }),
    );
    expect(big.status).toBe(413);
    const get = await callWorker(new Request(ENDPOINT));
    expect(get.status).toBe(405);
    expect(get.headers.get('Allow')).toContain('POST');
  });

  it('turns unreachable upstreams into isError results without leaking a key', async () => {
    const client = await connect(downEnv);
    const texts: string[] = [];
    for (const name of ['get_current_gas', 'get_eth_price', 'get_l2_gas', 'get_gas_history'] as const) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError, name).toBe(true);
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(text.startsWith(`${name} failed: `)).toBe(true);
      texts.push(text);
    }
    expect(texts.join('\n')).not.toContain(SECRET);
    expect(texts.join('\n')).not.toMatch(/127\.0\.0\.1|:9\b/);
    await client.close();
  });
});
