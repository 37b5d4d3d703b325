import { z } from '@hono/zod-openapi';
import { type DomainError, UnavailableError } from '../errors';

/** One parameter that was missing or invalid, with what is allowed. */
export interface InvalidParam {
  name: string;
  reason: string;
  allowed?: string[];
}

/** An RFC 9457 problem: thrown by handlers and middleware, rendered by the app's error handler. */
export class HttpProblem extends Error {
  override name = 'HttpProblem';
  constructor(
    readonly status: 400 | 404 | 405 | 408 | 413 | 431 | 500 | 503,
    readonly title: string,
    readonly detail: string,
    readonly extra: { invalidParams?: InvalidParam[]; retryAfterSeconds?: number; allow?: string[] } = {},
  ) {
    super(detail);
  }
}

/**
 * Translates a domain error into the problem clients see: an unavailable dependency is a 503 whose
 * `Retry-After` is the error's retry hint; anything else the domain raises is a 500.
 */
export function problemFromDomainError(error: DomainError): HttpProblem {
  if (error instanceof UnavailableError) {
    return new HttpProblem(503, error.summary, error.message, { retryAfterSeconds: error.retryAfterSeconds });
  }
  return new HttpProblem(500, error.summary, error.message);
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Builds the problem+json body; never includes a stack trace, URL or secret. */
export function problemBody(problem: HttpProblem, instance?: string) {
  return {
    type: `https://httpstatuses.io/${problem.status}`,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    ...(instance === undefined ? {} : { instance }),
    ...(problem.extra.invalidParams ? { invalidParams: problem.extra.invalidParams } : {}),
  };
}

/** Renders a problem as a Response with the right content type and headers. */
export function problemResponse(problem: HttpProblem, instance: string): Response {
  const headers = new Headers({ 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store' });
  if (problem.extra.retryAfterSeconds !== undefined) {
    headers.set('Retry-After', String(problem.extra.retryAfterSeconds));
  }
  if (problem.extra.allow) headers.set('Allow', problem.extra.allow.join(', '));
  return new Response(JSON.stringify(problemBody(problem, instance)), { status: problem.status, headers });
}

/** OpenAPI schema of every error body. */
export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: 'https://httpstatuses.io/400' }),
    title: z.string().openapi({ example: 'Invalid query parameter' }),
    status: z.number().int().openapi({ example: 400 }),
    detail: z.string(),
    instance: z.string().openapi({ example: '/api/gas-history?range=1y' }),
    invalidParams: z
      .array(
        z.object({
          name: z.string().openapi({ example: 'range' }),
          reason: z.string().openapi({ example: 'must be one of the allowed values' }),
          allowed: z
            .array(z.string())
            .optional()
            .openapi({ example: ['10m', '30m', '2h', '6h', '1d', '7d', '30d'] }),
        }),
      )
      .optional(),
  })
  .openapi('Problem');

/** OpenAPI response entries for the error statuses a route can answer. */
export function problemResponses(...statuses: Array<400 | 404 | 405 | 413 | 500 | 503>) {
  const descriptions: Record<number, string> = {
    400: 'A query parameter is missing or invalid; `invalidParams` names each one and its allowed values.',
    404: 'No such path.',
    405: 'Method not allowed; the `Allow` header lists the allowed methods.',
    413: 'Request body too large.',
    500: 'Unexpected server error.',
    503: 'A dependency is unavailable; retry after the `Retry-After` header.',
  };
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: descriptions[status] ?? 'Error',
        content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
      },
    ]),
  );
}
