import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { MCP_MAX_BODY_BYTES } from '../../functions/mcp';
import { TOOL_NAMES } from '../../lib/mcp/tools';
import { JsonRpcErrorSchema } from '../../lib/schemas/mcp';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { expectNoLeaks, startUpstreams, type Upstreams } from '../upstreams';
import { headWithBlobs } from '../upstreams/chain-model';

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const INITIALIZE =
  '{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}';
let up: Upstreams;
let deps: TestDeps;
let app: ReturnType<typeof createApp>;
const clients: Client[] = [];

beforeAll(async () => {
  up = await startUpstreams();
  deps = createTestDeps({ ...up.env, PUBLIC_BASE_URL: 'https://gas.test' });
  app = createApp(deps);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await up?.close();
});

/** An SDK client whose transport calls the app in-process. */
async function connect(): Promise<Client> {
  const client = new Client({ name: 'bad-input-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('https://gas.test/api/mcp'), {
    fetch: async (input, init) => app.fetch(new Request(input, init)),
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A JSON-RPC error answer or a problem body, as far as these tests read them. */
interface JsonAnswer {
  jsonrpc?: string;
  id?: unknown;
  error?: { code: number; message: string };
  result?: unknown;
  status?: number;
  title?: string;
}

/** POSTs a raw body to the endpoint and returns the status, headers and JSON answer. */
async function post(body: string, headers: Record<string, string> = MCP_HEADERS) {
  const res = await app.request('/api/mcp', { method: 'POST', headers, body });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: text ? (JSON.parse(text) as JsonAnswer) : null,
  };
}

/** The text of a tool result's first content item. */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const first = (result.content as Array<{ type: string; text?: string }>)[0];
  return first?.text ?? '';
}

describe('POST /api/mcp with bad input', () => {
  it('answers a body that is not JSON with -32700 (Parse error)', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it.each([
    ['an object without jsonrpc', '{"id": 1, "method": "ping"}'],
    ['a wrong jsonrpc version', '{"jsonrpc": "1.0", "id": 1, "method": "ping"}'],
    ['a method that is not a string', '{"jsonrpc": "2.0", "id": 1, "method": 42}'],
    ['a bare string', '"tools/list"'],
    ['an empty batch', '[]'],
    ['a request whose id is not an integer', '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}'],
    ['an initialize in a batch', `[${INITIALIZE}, {"foo": 1}]`],
    [
      'a batch of 101 messages',
      `[${Array.from({ length: 101 }, (_, i) => `{"jsonrpc": "2.0", "id": ${i}, "method": "ping"}`).join(',')}]`,
    ],
  ])('answers %s with -32600 (Invalid Request)', async (_, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(res.json?.error?.message).toMatch(/^Invalid Request: /);
  });

  it('answers a batch item by item: the valid request its result, the invalid item its -32600 (JSON-RPC 2.0 section 6)', async () => {
    const res = await post('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"foo": 1}]');
    expect(res.status).toBe(200);
    const answers = JSON.parse(res.text) as JsonAnswer[];
    expect(answers).toHaveLength(2);
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(answers.find((a) => a.error)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(answers.find((a) => a.error)?.error?.message).toContain('batch item 1');
  });

  it('answers a batch of one request with an array of one answer', async () => {
    const res = await post('[{"jsonrpc": "2.0", "id": 9, "method": "ping"}]');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
  });

  it.each([
    ['a Content-Type that is not JSON', { 'Content-Type': 'text/plain', Accept: MCP_HEADERS.Accept }, 415],
    [
      'an Accept without text/event-stream',
      { 'Content-Type': 'application/json', Accept: 'application/json' },
      406,
    ],
    ['an unknown protocol version', { ...MCP_HEADERS, 'MCP-Protocol-Version': '1999-01-01' }, 400],
  ])('checks the headers of a request none of whose messages is valid: %s', async (_, headers, status) => {
    for (const body of [
      '[{"foo": 1}]',
      '{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"_meta": 5}}',
    ]) {
      const res = await post(body, headers);
      expect(res.status, body).toBe(status);
      expect(res.json).toMatchObject({ id: null, error: { code: -32000 } });
      // As /openapi.json documents it.
      expect(JsonRpcErrorSchema.safeParse(res.json).success, body).toBe(true);
    }
  });

  it('answers a batch of notifications and invalid items with the errors alone', async () => {
    const res = await post('[{"jsonrpc": "2.0", "method": "notifications/initialized"}, 42]');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject([{ id: null, error: { code: -32600 } }]);
  });

  it.each([
    ['ping', '{"_meta": 5}', -32602, 'Invalid params for ping: params._meta'],
    ['tools/call', '{"name": "get_eth_price", "_meta": "x"}', -32602, 'Invalid params for tools/call'],
    ['resources/list', '{"_meta": 5}', -32601, 'Method not found: resources/list'],
  ])('answers %s with malformed params %s with %i, echoing the id', async (method, params, code, message) => {
    const res = await post(`{"jsonrpc": "2.0", "id": "q1", "method": "${method}", "params": ${params}}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 'q1', error: { code } });
    expect(res.json?.error?.message).toContain(message);
  });

  it('answers a request with an extra top-level member, which JSON-RPC 2.0 does not forbid', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 3, "method": "ping", "trace": "abc"}');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('answers a tools/call carrying task metadata normally, since the server declares no task support', async () => {
    const res = await post(
      '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "get_l2_gas", "arguments": {"network": "zksync"}, "task": {"ttl": 1000}}}',
    );
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: 4, result: { isError: true } });
  });

  it('takes the Accept media types in any case (RFC 9110)', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 5, "method": "ping"}', {
      'Content-Type': 'application/json',
      Accept: 'Application/JSON, Text/Event-Stream',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
  });

  it('names the argument of a deeply nested or very long bad value, echoing at most 100 characters of it', async () => {
    // Sent raw: the SDK client cannot serialise an array nested this deep (a 12 KB body).
    const nested = `${'['.repeat(6000)}${']'.repeat(6000)}`;
    const res = await post(
      `{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "get_l2_gas", "arguments": {"network": ${nested}}}}`,
    );
    const deep = (res.json?.result ?? {}) as { isError?: boolean; content?: { text: string }[] };
    expect(deep.isError).toBe(true);
    expect(deep.content?.[0]?.text).toContain('network must be one of');
    expect(deep.content?.[0]?.text).toContain('got a deeply nested array');
    const client = await connect();
    const long = await client.callTool({ name: 'get_l2_gas', arguments: { network: 'z'.repeat(5000) } });
    expect(textOf(long)).toContain(`got "${'z'.repeat(99)}… (5002 characters)`);
    expect(textOf(long).length).toBeLessThan(400);
  });

  it('answers an unknown method with -32601 (Method not found), echoing the id', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": "abc", "method": "resources/list"}');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 'abc', error: { code: -32601 } });
  });

  it('answers tools/call without a name with -32602 listing the tools', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(res.json?.error?.message).toContain('params.name');
    for (const name of TOOL_NAMES) expect(res.json?.error?.message).toContain(name);
  });

  it('answers an unknown tool with -32602 naming it and listing the eight tools', async () => {
    const client = await connect();
    const error = await client.callTool({ name: 'get_gas_price', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toContain('Unknown tool "get_gas_price"');
    for (const name of TOOL_NAMES) expect((error as McpError).message).toContain(name);
  });

  it.each([
    ['get_l2_gas', { network: 'zksync' }, 'network', ['arbitrum', 'optimism', 'base', 'polygon']],
    ['best_time_to_transact', { timeframe: '48h' }, 'timeframe', ['6h', '12h', '24h', '7d']],
    ['get_gas_forecast', { timeframe: 24 }, 'timeframe', ['6h', '12h', '24h', '7d']],
    ['get_gas_history', { range: '1y' }, 'range', ['10m', '30m', '2h', '6h', '1d', '7d', '30d']],
    ['get_forecast_accuracy', { window: '1d' }, 'window', ['7d', '30d']],
    ['estimate_transaction_cost', { network: 'solana' }, 'network', ['mainnet', 'arbitrum', 'polygon']],
    ['estimate_transaction_cost', { tier: 'fast' }, 'tier', ['low', 'average', 'high']],
  ])(
    'rejects %s with %j, naming the argument and its allowed values',
    async (tool, args, argument, allowed) => {
      const client = await connect();
      const result = await client.callTool({ name: tool, arguments: args });
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toContain(`${argument} must be one of`);
      for (const value of allowed) expect(text).toContain(`"${value}"`);
      expect(text).toContain(`got ${JSON.stringify(Object.values(args)[0])}`);
    },
  );

  it.each([
    [
      { gasLimit: 100 },
      'gasLimit must be at least 21,000, the intrinsic gas every transaction pays (a node refuses less: "intrinsic gas too low"), and at most 30,000,000; got 100',
    ],
    [{ gasLimit: 20_999, network: 'arbitrum' }, 'gasLimit must be at least 21,000'],
    [{ gasLimit: 0 }, 'gasLimit must be at least 21,000'],
    [{ gasLimit: 21_000.5 }, 'gasLimit must be a whole number'],
    [{ gasLimit: 30_000_001 }, 'gasLimit must be at most 30,000,000'],
    [
      { gasLimit: 16_777_217 },
      'gasLimit must be at most 16,777,216 on mainnet, the gas one transaction may use since Fusaka (EIP-7825); got 16777217',
    ],
    [{ gasLimit: '21000' }, 'gasLimit must be a number'],
    [{ gas_limit: 50_000 }, 'unknown argument "gas_limit"; accepted arguments: gasLimit, network, tier'],
  ])('rejects estimate_transaction_cost with %j', async (args, message) => {
    const client = await connect();
    const result = await client.callTool({ name: 'estimate_transaction_cost', arguments: args });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(message);
  });

  it.each([
    [{ blobs: -1 }, 'blobs must be from 0 to'],
    [{ blobs: 1.5 }, 'blobs must be a whole number of blobs; got 1.5'],
    [{ blobs: 'two' }, 'blobs must be a number of blobs; got "two"'],
    [
      { blobs: 7 },
      'blobs must be from 0 to 6, the blobs one transaction may carry since Fusaka (EIP-7594); got 7',
    ],
    [
      { blobs: 22 },
      'blobs must be from 0 to 6, the blobs one transaction may carry since Fusaka (EIP-7594); got 22',
    ],
    [{ blobs: 1, network: 'base' }, 'blobs must be 0 on Base'],
  ])(
    'rejects estimate_transaction_cost with blobs %j, naming the argument and its range',
    async (args, message) => {
      // A head whose newest block carries blobs, so the per-block maximum (21 under BPO2) is known.
      for (const sim of up.mainnet) sim.setHead({ number: headWithBlobs(up) });
      const client = await connect();
      const result = await client.callTool({ name: 'estimate_transaction_cost', arguments: args });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(message);
    },
  );

  it("rejects a mainnet gasLimit or blobs over Fusaka's per-transaction caps before reading any upstream", async () => {
    for (const sim of up.mainnet) await sim.fault('refuse');
    await up.etherscan.fault('http-500');
    try {
      const client = await connect();
      for (const [args, message] of [
        [{ gasLimit: 20_000_000 }, 'gasLimit must be at most 16,777,216 on mainnet'],
        [{ blobs: 7 }, 'blobs must be from 0 to 6'],
      ] as const) {
        const result = await client.callTool({ name: 'estimate_transaction_cost', arguments: args });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain(message);
        expect(textOf(result)).not.toContain('unavailable');
      }
    } finally {
      await up.reset();
    }
  });

  it('rejects an argument given to a tool that takes none', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'get_current_gas', arguments: { network: 'base' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('unknown argument "network"; this tool takes no arguments');
  });

  it('answers a body over 64 KiB with a 413 problem', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(MCP_MAX_BODY_BYTES) },
    });
    const res = await post(body);
    expect(res.status).toBe(413);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    expect(res.json).toMatchObject({ status: 413, title: 'Request body too large' });
  });

  it('accepts a body just under the limit', async () => {
    const envelope = { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: '' } } };
    const pad = 'x'.repeat(MCP_MAX_BODY_BYTES - JSON.stringify(envelope).length);
    const res = await post(JSON.stringify({ ...envelope, params: { _meta: { pad } } }));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it.each(['GET', 'DELETE', 'PUT'])('answers %s with 405 and Allow: POST', async (method) => {
    const res = await app.request('/api/mcp', { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toContain('POST');
    expect(res.headers.get('Allow')).not.toContain('GET');
  });

  it('answers a client that does not accept JSON and SSE with 406', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": "ping"}', {
      'Content-Type': 'application/json',
      Accept: 'text/html',
    });
    expect(res.status).toBe(406);
    expect(JsonRpcErrorSchema.safeParse(res.json).success).toBe(true);
  });

  it('answers a body that is not declared as JSON with 415', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": "ping"}', {
      'Content-Type': 'text/plain',
      Accept: MCP_HEADERS.Accept,
    });
    expect(res.status).toBe(415);
    expect(JsonRpcErrorSchema.safeParse(res.json).success).toBe(true);
  });

  it('answers a notification alone with 202 and no body', async () => {
    const res = await post('{"jsonrpc": "2.0", "method": "notifications/initialized"}');
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('declares its tool list fixed (listChanged false): a stateless server never notifies', async () => {
    const res = await post(INITIALIZE);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: 0, result: { capabilities: { tools: { listChanged: false } } } });
  });

  it('keeps serving after every fault above', async () => {
    const client = await connect();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    expectNoLeaks(up, ...deps.logs);
  });
});
