import { bodyLimit } from 'hono/body-limit';
import { publicBaseUrl } from '../lib/http/envelope';
import { HttpProblem, problemResponses } from '../lib/http/problem';
import { readJsonRpcBody } from '../lib/mcp/jsonrpc-body';
import { serveMcpRequest } from '../lib/mcp/server';
import { JsonRpcErrorSchema } from '../lib/schemas/mcp';
import type { ApiApp } from './app-env';

/** Largest JSON-RPC body accepted; tool calls here are tiny. */
export const MCP_MAX_BODY_BYTES = 64 * 1024;

const JSON_RPC_ERROR = { 'application/json': { schema: JsonRpcErrorSchema } };

/**
 * POST /api/mcp: the MCP server over stateless Streamable HTTP with JSON responses. A new server and
 * transport serve each request; GET and DELETE get 405 from the app's method check.
 */
export function registerMcp(app: ApiApp): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/mcp',
    summary: 'MCP server (JSON-RPC 2.0 over Streamable HTTP) for AI agents',
    description:
      'Stateless, unauthenticated, read-only. Tools: get_current_gas, get_l2_gas, get_eth_price, best_time_to_transact, ' +
      'estimate_transaction_cost, get_gas_forecast, get_gas_history, get_forecast_accuracy. Send `Accept: application/json, text/event-stream`.',
    request: {
      body: {
        content: {
          'application/json': {
            schema: { type: 'object' },
            example: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          },
        },
      },
    },
    responses: {
      200: {
        description:
          'A JSON-RPC response (or batch). A tool whose upstream failed answers a result with `isError: true`; an ' +
          'unknown method is error -32601, an unknown tool -32602 listing the tools.',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      202: { description: 'Accepted (notifications only).' },
      400: {
        description:
          'JSON-RPC error with id null: -32700 when the body is not JSON, -32600 when it is not a JSON-RPC 2.0 message (in a batch, each such item gets its -32600 in the 200 answer), -32000 when the MCP-Protocol-Version header names a version this server does not speak.',
        content: JSON_RPC_ERROR,
      },
      406: {
        description:
          'JSON-RPC error -32000: the Accept header does not list both application/json and text/event-stream.',
        content: JSON_RPC_ERROR,
      },
      415: {
        description: 'JSON-RPC error -32000: the Content-Type is not application/json.',
        content: JSON_RPC_ERROR,
      },
      ...problemResponses([405, 413], {
        path: '/api/mcp',
        tooLarge: `An MCP request body may be at most ${MCP_MAX_BODY_BYTES} bytes.`,
      }),
    },
  });

  app.post(
    '/api/mcp',
    bodyLimit({
      maxSize: MCP_MAX_BODY_BYTES,
      onError: () => {
        throw new HttpProblem(
          413,
          'Request body too large',
          `An MCP request body may be at most ${MCP_MAX_BODY_BYTES} bytes.`,
        );
      },
    }),
    async (c) => {
      const deps = c.var.deps;
      const parsed = readJsonRpcBody(await c.req.text());
      if (!parsed.ok) return parsed.response;
      return serveMcpRequest(deps, publicBaseUrl(deps.config.publicBaseUrl, c.req.url), c.req.raw, parsed);
    },
  );
}
