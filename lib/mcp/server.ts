import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { type JSONRPCErrorResponse, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../deps';
import { SERVICE_NAME } from '../http/envelope';
import { jsonRpcError, jsonRpcResponse } from './jsonrpc-body';
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
  // The SDK declares a tool list that may change; this one never does, and a stateless server with no
  // stream open could not say so anyway.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

/**
 * Serves one POST of the MCP endpoint: a new server and transport (stateless, JSON responses) handle
 * the already read messages, and are closed once the answer is buffered, so nothing outlives the
 * request (workerd forbids I/O objects across requests). `errors` are the answers owed for the bad
 * messages (readJsonRpcBody): a batch is answered with one array holding them beside the SDK's
 * answers, a single bad message with its error alone, after the same header checks the transport makes.
 */
export async function serveMcpRequest(
  deps: AppDeps,
  baseUrl: string,
  request: Request,
  body: { messages: readonly unknown[]; errors: readonly JSONRPCErrorResponse[]; batch: boolean },
): Promise<Response> {
  const { messages, errors, batch } = body;
  const req = withCaseFreeAccept(request);
  if (messages.length === 0) {
    const fault = transportFault(req);
    if (fault) return fault;
    const [only] = errors;
    if (batch || !only) return jsonRpcResponse(errors);
    return jsonRpcResponse(only, only.id === null ? 400 : 200);
  }
  const res = await serveBySdk(deps, baseUrl, req, batch ? messages : messages[0]);
  if (!batch || (res.status === 202 && errors.length === 0)) return res;
  // The SDK answers a batch of notifications with 202 and a batch with one request with that one
  // answer alone; a batch is answered with an array holding every answer owed.
  if (res.status === 202) return jsonRpcResponse(errors);
  if (res.status !== 200) return res;
  const answered: unknown = JSON.parse(new TextDecoder().decode(await res.arrayBuffer()));
  return jsonRpcResponse([...(Array.isArray(answered) ? answered : [answered]), ...errors]);
}

/**
 * The transport's own checks of a POST (Accept, Content-Type, a known MCP-Protocol-Version), for the
 * requests answered without it because none of their messages reaches it; the same answers it gives.
 */
function transportFault(request: Request): Response | undefined {
  const accept = request.headers.get('Accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return jsonRpcError(
      -32000,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
      406,
    );
  }
  if (!isJsonContentType(request.headers.get('Content-Type'))) {
    return jsonRpcError(-32000, 'Unsupported Media Type: Content-Type must be application/json', 415);
  }
  const version = request.headers.get('MCP-Protocol-Version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return jsonRpcError(
      -32000,
      `Bad Request: Unsupported protocol version: ${version.slice(0, 40)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  return undefined;
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
