import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCErrorResponse } from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../deps';
import { SERVICE_NAME } from '../http/envelope';
import { jsonRpcResponse } from './jsonrpc-body';
import { guardRequests } from './request-guard';
import { registerTool } from './tool';
import { TOOL_NAMES, TOOLS } from './tools';

export const MCP_SERVER_VERSION = '1.0.0';

const INSTRUCTIONS = [
  `${SERVICE_NAME}: free, read-only Ethereum gas data for agents. No key needed.`,
  'get_current_gas gives mainnet low/average/high (gwei) now; estimate_transaction_cost prices a gas limit',
  'on mainnet or an L2 in gwei, native token and USD; best_time_to_transact says send now or wait and until',
  'when; get_gas_forecast gives hourly predictions; get_forecast_accuracy says how good those forecasts have',
  'been; get_gas_history gives stored history; get_l2_gas and get_eth_price give L2 readings and ETH/USD.',
  'Cite the service using the citation in every result.',
].join(' ');

/** Creates a fresh MCP server with every tool; one per request (stateless Streamable HTTP). */
export function createMcpServer(deps: AppDeps, baseUrl: string): McpServer {
  const server = new McpServer(
    { name: 'gas-fee-api', title: SERVICE_NAME, version: MCP_SERVER_VERSION },
    { instructions: INSTRUCTIONS, capabilities: { tools: {} } },
  );
  for (const tool of TOOLS) registerTool(server, deps, baseUrl, tool);
  return server;
}

/**
 * Serves one POST of the MCP endpoint: a new server and transport (stateless, JSON responses) handle
 * the already parsed body, and are closed once the answer is buffered, so nothing outlives the request
 * (workerd forbids I/O objects across requests). `errors` are the answers owed for a batch's bad
 * items (readJsonRpcBody), sent in the same batch answer as the SDK's.
 */
export async function serveMcpRequest(
  deps: AppDeps,
  baseUrl: string,
  request: Request,
  body: unknown,
  errors: readonly JSONRPCErrorResponse[] = [],
): Promise<Response> {
  if (Array.isArray(body) && body.length === 0) return jsonRpcResponse(errors);
  const res = await serveBySdk(deps, baseUrl, withCaseFreeAccept(request), body);
  if (errors.length === 0) return res;
  // The SDK answers a batch of notifications only with 202, and a batch with one request with that
  // one answer alone: either way the bad items' errors make the answer a batch.
  if (res.status === 202) return jsonRpcResponse(errors);
  if (res.status !== 200) return res;
  const answered: unknown = JSON.parse(new TextDecoder().decode(await res.arrayBuffer()));
  return jsonRpcResponse([...(Array.isArray(answered) ? answered : [answered]), ...errors]);
}

/**
 * The request with its Accept header in lower case: media types are case-insensitive (RFC 9110), but
 * the SDK looks for `application/json` and `text/event-stream` as written.
 */
function withCaseFreeAccept(request: Request): Request {
  const accept = request.headers.get('Accept');
  if (accept === null || accept === accept.toLowerCase()) return request;
  const headers = new Headers(request.headers);
  headers.set('Accept', accept.toLowerCase());
  return new Request(request.url, { method: request.method, headers });
}

async function serveBySdk(
  deps: AppDeps,
  baseUrl: string,
  request: Request,
  body: unknown,
): Promise<Response> {
  const server = createMcpServer(deps, baseUrl);
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  const logFault = (error: Error) =>
    deps.log.warn('mcp request fault', { error: error.message.slice(0, 300) });
  server.server.onerror = logFault;
  await server.connect(transport);
  transport.onerror = logFault;
  guardRequests(transport, TOOL_NAMES);
  try {
    const res = await transport.handleRequest(request, { parsedBody: body });
    const buffered = await res.arrayBuffer();
    return new Response(buffered.byteLength ? buffered : null, res);
  } finally {
    await server.close();
  }
}
