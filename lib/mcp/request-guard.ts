import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

/** The requests this server answers, with the schema their params must meet. */
const REQUEST_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/**
 * Checks each request before the SDK dispatches it and answers JSON-RPC error -32602 (Invalid params)
 * itself where the SDK would be unhelpful: malformed params of a known method (the SDK answers -32603
 * Internal error with a raw zod dump) and a tools/call naming a tool that does not exist (the MCP
 * protocol error for an unknown tool; the message lists the tools). Wraps the transport's dispatch, so
 * it must run after connect().
 */
export function guardRequests(transport: Transport, toolNames: readonly string[]): void {
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const error = isJSONRPCRequest(message) ? checkRequest(message, toolNames) : undefined;
    if (!error || !isJSONRPCRequest(message)) {
      dispatch?.(message, extra);
      return;
    }
    transport
      .send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, ...error } })
      .catch((cause: unknown) =>
        transport.onerror?.(cause instanceof Error ? cause : new Error(String(cause))),
      );
  };
}

/** Returns the error message (and data) for a request the SDK should not see, else undefined. */
function checkRequest(
  request: JSONRPCRequest,
  toolNames: readonly string[],
): { message: string; data?: unknown } | undefined {
  const schema = REQUEST_SCHEMAS[request.method];
  if (!schema) return undefined;
  const available = `available tools: ${toolNames.join(', ')}`;
  const parsed = schema.safeParse({ method: request.method, params: request.params });
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (i) => `${['params', ...i.path.slice(1)].join('.')}: ${i.message}`,
    );
    const hint =
      request.method === 'tools/call'
        ? ` tools/call needs params.name (${available}) and params.arguments.`
        : '';
    return { message: `Invalid params for ${request.method}: ${issues.join('; ')}.${hint}` };
  }
  const name = request.method === 'tools/call' ? request.params?.name : undefined;
  if (typeof name === 'string' && !toolNames.includes(name)) {
    return {
      message: `Unknown tool ${JSON.stringify(name.slice(0, 100))}; ${available}.`,
      data: { availableTools: toolNames },
    };
  }
  return undefined;
}
