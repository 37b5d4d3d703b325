import { z } from '@hono/zod-openapi';

/** The JSON-RPC 2.0 error object the MCP transport answers its 400, 406 and 415 with. */
export const JsonRpcErrorSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.null().optional().openapi({ description: 'Null or absent: the request could not be read.' }),
    error: z.object({ code: z.number().int(), message: z.string() }),
  })
  .openapi('JsonRpcError');
