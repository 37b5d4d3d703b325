import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
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
      dispatch?.(withoutTask(message), extra);
      return;
    }
    transport
      .send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, ...error } })
      .catch((cause: unknown) =>
        transport.onerror?.(cause instanceof Error ? cause : new Error(String(cause))),
      );
  };
}

/**
 * A tools/call without its `task` member: this server declares no task support, and MCP says such a
 * receiver processes the request normally, ignoring the task metadata (the SDK would refuse it).
 */
function withoutTask<M extends JSONRPCMessage>(message: M): M {
  if (!isJSONRPCRequest(message) || message.method !== 'tools/call' || !message.params) return message;
  if (!('task' in message.params)) return message;
  const { task: _, ...params } = message.params;
  return { ...message, params };
}

/** Whether this server answers `method` (others are -32601, Method not found). */
export function knowsMethod(method: string): boolean {
  return Object.hasOwn(REQUEST_SCHEMAS, method);
}

/** The -32602 message for params of a known method that its schema refuses, naming each fault. */
export function invalidParamsOf(method: string, params: unknown, toolNames: readonly string[] = []): string {
  const schema = REQUEST_SCHEMAS[method];
  const parsed = schema?.safeParse({ method, params });
  if (!parsed || parsed.success) return `Invalid params for ${method}.`;
  const issues = parsed.error.issues.map((i) => `${['params', ...i.path.slice(1)].join('.')}: ${i.message}`);
  const hint =
    method === 'tools/call'
      ? ` tools/call needs params.name (available tools: ${toolNames.join(', ')}) and params.arguments.`
      : '';
  return `Invalid params for ${method}: ${issues.join('; ')}.${hint}`;
}

/** Returns the error message (and data) for a request the SDK should not see, else undefined. */
function checkRequest(
  request: JSONRPCRequest,
  toolNames: readonly string[],
): { message: string; data?: unknown } | undefined {
  const schema = REQUEST_SCHEMAS[request.method];
  if (!schema) return undefined;
  const available = `available tools: ${toolNames.join(', ')}`;
  if (!schema.safeParse({ method: request.method, params: request.params }).success) {
    return { message: invalidParamsOf(request.method, request.params, toolNames) };
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
