import {
  ErrorCode,
  type JSONRPCErrorResponse,
  JSONRPCMessageSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { invalidParamsOf, knowsMethod } from './request-guard';
import { TOOL_NAMES } from './tools';

/** Messages one batch may hold (the SDK's own limit). */
export const MAX_BATCH_MESSAGES = 100;

/**
 * A request body read as JSON-RPC: the messages the SDK may see and the error responses owed for the
 * others, and whether the body was a batch (so the answer is one too); or the error response to send
 * at once, when the body as a whole is at fault.
 */
export type JsonRpcBody =
  | { ok: true; messages: unknown[]; errors: JSONRPCErrorResponse[]; batch: boolean }
  | { ok: false; response: Response };

/** The members a JSON-RPC 2.0 message may have; others are dropped before the SDK's strict schema. */
const MEMBERS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'] as const;

/**
 * Parses an MCP request body before the transport sees it, so that each fault gets its JSON-RPC code:
 * text that is not JSON is -32700 (Parse error); an empty batch, one over MAX_BATCH_MESSAGES, or one
 * holding an initialize (MCP: initialize is sent alone) is -32600 for the whole body. Item by item, a
 * message that is not a JSON-RPC 2.0 request, notification or response is -32600 (Invalid Request, id
 * null), and a request whose params the SDK would refuse (a malformed `_meta`, say) -32602 for a
 * method this server answers and -32601 for any other, echoing its id; the other messages are
 * answered (JSON-RPC 2.0 section 6). The SDK would call every such fault a parse error with id null.
 */
export function readJsonRpcBody(text: string): JsonRpcBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return failed(ErrorCode.ParseError, 'Parse error: the request body is not valid JSON.');
  }
  if (Array.isArray(body)) {
    if (body.length === 0)
      return failed(ErrorCode.InvalidRequest, 'Invalid Request: an empty batch holds no message.');
    if (body.length > MAX_BATCH_MESSAGES) {
      return failed(
        ErrorCode.InvalidRequest,
        `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages.`,
      );
    }
    if (body.length > 1 && body.some(isInitialize)) {
      return failed(
        ErrorCode.InvalidRequest,
        'Invalid Request: initialize must be sent alone, not in a batch.',
      );
    }
  }
  const batch = Array.isArray(body);
  const items: unknown[] = Array.isArray(body) ? body : [body];
  const read = items.map((message, index) =>
    readMessage(message, batch ? `batch item ${index}` : 'the body'),
  );
  return {
    ok: true,
    messages: read.flatMap((r) => ('message' in r ? [r.message] : [])),
    errors: read.flatMap((r) => ('error' in r ? [r.error] : [])),
    batch,
  };
}

function isInitialize(message: unknown): boolean {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { method?: unknown }).method === 'initialize'
  );
}

/** One message as the SDK may see it, or the error response owed for it. */
function readMessage(
  message: unknown,
  where: string,
): { message: unknown } | { error: JSONRPCErrorResponse } {
  if (JSONRPCMessageSchema.safeParse(message).success) return { message };
  const isObject = typeof message === 'object' && message !== null && !Array.isArray(message);
  const fields = isObject ? (message as Record<string, unknown>) : {};
  const trimmed = Object.fromEntries(MEMBERS.filter((k) => k in fields).map((k) => [k, fields[k]]));
  if (isObject && JSONRPCMessageSchema.safeParse(trimmed).success) return { message: trimmed };
  const { jsonrpc, id, method, params } = fields;
  const validId = typeof id === 'string' || Number.isSafeInteger(id);
  if (jsonrpc === '2.0' && typeof method === 'string' && validId) {
    const requestId = id as RequestId;
    if (!knowsMethod(method)) {
      return {
        error: errorOf(requestId, ErrorCode.MethodNotFound, `Method not found: ${method.slice(0, 100)}`),
      };
    }
    return {
      error: errorOf(requestId, ErrorCode.InvalidParams, invalidParamsOf(method, params, TOOL_NAMES)),
    };
  }
  return {
    error: errorOf(
      null,
      ErrorCode.InvalidRequest,
      `Invalid Request: ${where} is not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0", a string ` +
        '"method" and, for a request, an "id" string or integer).',
    ),
  };
}

function errorOf(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id: id as RequestId, error: { code, message } };
}

function failed(code: number, message: string): JsonRpcBody {
  return { ok: false, response: jsonRpcError(code, message) };
}

/** A JSON-RPC error with no request id, as answered when the body itself is at fault (HTTP 400). */
export function jsonRpcError(code: number, message: string, status = 400): Response {
  return jsonRpcResponse(errorOf(null, code, message), status);
}

/** A JSON-RPC answer (one message or a batch) as an HTTP response. */
export function jsonRpcResponse(answer: unknown, status = 200): Response {
  return new Response(JSON.stringify(answer), { status, headers: { 'Content-Type': 'application/json' } });
}
