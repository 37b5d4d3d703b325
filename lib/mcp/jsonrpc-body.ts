import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** A request body read as JSON-RPC: the parsed messages, or the error response to send instead. */
export type JsonRpcBody = { ok: true; body: unknown } | { ok: false; response: Response };

/**
 * Parses an MCP request body before the transport sees it, so that each fault gets its JSON-RPC code:
 * text that is not JSON is -32700 (Parse error), JSON that is not a JSON-RPC 2.0 message (or a
 * non-empty batch of them) is -32600 (Invalid Request). The SDK would call both a parse error.
 */
export function readJsonRpcBody(text: string): JsonRpcBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {
      ok: false,
      response: jsonRpcError(ErrorCode.ParseError, 'Parse error: the request body is not valid JSON.'),
    };
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) {
    return {
      ok: false,
      response: jsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: an empty batch holds no message.'),
    };
  }
  const bad = messages.findIndex((message) => !JSONRPCMessageSchema.safeParse(message).success);
  if (bad >= 0) {
    const where = Array.isArray(body) ? `batch item ${bad}` : 'the body';
    return {
      ok: false,
      response: jsonRpcError(
        ErrorCode.InvalidRequest,
        `Invalid Request: ${where} is not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0", a string ` +
          '"method" and, for a request, an "id" string or number).',
      ),
    };
  }
  return { ok: true, body };
}

/** A JSON-RPC error with no request id, as answered when the body itself is at fault (HTTP 400). */
export function jsonRpcError(code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), {
    status: 400,
    headers: { 'Content-Type': 'application/json' },
  });
}
