import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, RequestInfo } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AppDeps } from '../deps';
import { DomainError, UnavailableError } from '../errors';
import { buildEnvelope } from '../http/envelope';
import { redactUrls } from '../log';
import { inputObject } from './inputs';

type Shape = z.ZodRawShape;

/** What a tool computes: the structured result, a one-line summary for the model, and the data's time. */
export interface ToolOutput<O extends Shape> {
  data: z.input<z.ZodObject<O>>;
  summary: string;
  updatedAt: number | string | Date;
}

/** A read-only MCP tool over the same services as the REST endpoints. */
export interface ToolDefinition<I extends Shape, O extends Shape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  run(deps: AppDeps, args: z.output<z.ZodObject<I>>, baseUrl: string): Promise<ToolOutput<O>>;
}

/** A tool of any input and output shape, as the server's list holds them. */
export type AnyToolDefinition = ToolDefinition<Shape, Shape>;

/**
 * A failure whose message is written for the caller (what is missing, what to do); thrown by a tool
 * when its service answered but the answer holds nothing to serve. With `retryAfterSeconds`, the
 * result ends with " Retry after N seconds." as an `UnavailableError`'s does.
 */
export class ToolUnavailableError extends Error {
  override name = 'ToolUnavailableError';
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A call whose arguments fail a check only live data can make (e.g. more blobs than a block holds now). */
export class ToolArgumentError extends Error {
  override name = 'ToolArgumentError';
}

/** Declares a tool; the identity function keeps the input and output types tied together. */
export function defineTool<I extends Shape, O extends Shape>(
  tool: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return tool;
}

/** The MCP protocol version that brought `structuredContent` (versions are dates, so they sort as text). */
const STRUCTURED_CONTENT_SINCE = '2025-06-18';

/** The citation every tool result carries, as in the REST envelope. */
const citationShape = {
  citation: z.string().describe('Attribution of the service, ending with `updated <time of the data>`.'),
};

/** The full output schema of a tool: its own fields plus the citation. */
export function outputSchemaOf<O extends Shape>(tool: Pick<ToolDefinition<Shape, O>, 'output'>) {
  return z.object({ ...tool.output, ...citationShape });
}

/**
 * Registers a tool on a server: strict input validation, the citation added to the structured result
 * and the summary text, the result parsed through the output schema (so it never carries a field the
 * schema does not declare), and any failure turned into an `isError` result whose message is useful but
 * never carries an upstream URL, a key or a stack.
 */
export function registerTool<I extends Shape, O extends Shape>(
  server: McpServer,
  deps: AppDeps,
  baseUrl: string,
  tool: ToolDefinition<I, O>,
): void {
  const output = outputSchemaOf(tool);
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: inputObject(tool.input),
      outputSchema: output,
      annotations: {
        title: tool.title,
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: true,
      },
    },
    (async (
      args: z.output<z.ZodObject<I>>,
      extra: { requestInfo?: RequestInfo },
    ): Promise<CallToolResult> => {
      try {
        const { data, summary, updatedAt } = await tool.run(deps, args, baseUrl);
        const { citation } = buildEnvelope(updatedAt, baseUrl);
        const structuredContent = output.parse({ ...data, citation }) as Record<string, unknown>;
        const content: CallToolResult['content'] = [{ type: 'text', text: `${summary}\n\n${citation}` }];
        // Clients of protocol versions before structured content get the data as JSON text too (MCP
        // 2025-06-18 asks this for backwards compatibility); a request without the version header is
        // of 2025-03-26, as the transport assumes.
        const version = extra.requestInfo?.headers['mcp-protocol-version'];
        if (typeof version !== 'string' || version < STRUCTURED_CONTENT_SINCE) {
          content.push({ type: 'text', text: JSON.stringify(structuredContent) });
        }
        return { structuredContent, content };
      } catch (error) {
        return failureResult(deps, tool.name, error);
      }
    }) as never,
  );
}

/** Builds the `isError` result of a failed call; only messages written for callers are shown as they are. */
function failureResult(deps: AppDeps, name: string, error: unknown): CallToolResult {
  let message: string;
  if (error instanceof DomainError) {
    const retry = error instanceof UnavailableError ? ` Retry after ${error.retryAfterSeconds} seconds.` : '';
    message = `${error.summary}: ${error.message}${retry}`;
    deps.log.warn('mcp tool failed', { tool: name, error: error.name });
  } else if (error instanceof ToolUnavailableError || error instanceof ToolArgumentError) {
    const retry =
      error instanceof ToolUnavailableError && error.retryAfterSeconds !== undefined
        ? ` Retry after ${error.retryAfterSeconds} seconds.`
        : '';
    message = `${error.message}${retry}`;
    deps.log.warn('mcp tool failed', { tool: name, error: redactUrls(error.message) });
  } else {
    // Anything else is unexpected and its text may name an upstream: the caller gets a generic message,
    // the log a redacted, shortened one.
    message = 'an internal error occurred; retry shortly.';
    deps.log.error('mcp tool crashed', { tool: name, error: redactUrls(String(error)).slice(0, 300) });
  }
  return { isError: true, content: [{ type: 'text', text: `${name} failed: ${message}` }] };
}
