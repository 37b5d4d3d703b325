import { z } from '@hono/zod-openapi';
import { type DomainError, UnavailableError } from '../errors';
import { responseHeaderRecord } from './headers';

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
    readonly status: 400 | 404 | 405 | 408 | 413 | 431 | 500 | 501 | 503,
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

/**
 * A problem as a whole response, CORS and the informational headers included, for an answer made
 * outside the app (whose middleware stamps its own): a refused configuration, a request the Node
 * adapter cannot read.
 */
export function standaloneProblemResponse(problem: HttpProblem): Response {
  return new Response(JSON.stringify(problemBody(problem)), {
    status: problem.status,
    headers: responseHeaderRecord({ 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store' }),
  });
}

/** OpenAPI schema of every error body (each status's example is on its response, not here). */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().optional(),
    invalidParams: z
      .array(z.object({ name: z.string(), reason: z.string(), allowed: z.array(z.string()).optional() }))
      .optional(),
  })
  .openapi('Problem');

type ProblemStatus = 400 | 404 | 405 | 413 | 500 | 503;

/** What a route's documented errors look like: its path, a bad value of one parameter, its 503. */
export interface ProblemExamples {
  path: string;
  /** A parameter, a value it refuses and its allowed values (for the 400); `also`: the other required ones. */
  invalid?: { name: string; value: string; allowed: readonly string[]; also?: string };
  /** The 503's cause: the domain error the route's service throws (its summary and message). */
  unavailable?: { summary: string; message: string };
  /** The 413's detail: the body limit of a route that takes a body. */
  tooLarge?: string;
}

/**
 * OpenAPI response entries for the error statuses a route can answer, each with an example of its
 * own status (a reference shows them; a shared schema example made every error look like a 400).
 */
export function problemResponses(statuses: readonly ProblemStatus[], examples: ProblemExamples) {
  const descriptions: Record<ProblemStatus, string> = {
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
        description: descriptions[status],
        content: {
          [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema, example: problemExample(status, examples) },
        },
      },
    ]),
  );
}

/** An example body of `status` for a route (see ProblemExamples). */
export function problemExample(
  status: ProblemStatus,
  { path, invalid, unavailable, tooLarge }: ProblemExamples,
) {
  const problem = (title: string, detail: string, instance = path) => ({
    type: `https://httpstatuses.io/${status}`,
    title,
    status,
    detail,
    instance,
  });
  switch (status) {
    case 400: {
      const { name, value, allowed, also } = invalid ?? { name: 'range', value: '1y', allowed: ['1d'] };
      const reason = `"${value}" is not an allowed value (values are case-sensitive)`;
      return {
        ...problem(
          'Invalid query parameter',
          `${name} ${reason}; allowed: ${allowed.join(', ')}`,
          `${path}?${name}=${value}${also ? `&${also}` : ''}`,
        ),
        invalidParams: [{ name, reason, allowed: [...allowed] }],
      };
    }
    case 404:
      return problem('Not found', `There is no resource at ${path}/nope; see /openapi.json.`, `${path}/nope`);
    case 405:
      return problem('Method not allowed', `DELETE is not allowed on ${path}.`);
    case 413:
      return problem(
        'Request body too large',
        tooLarge ?? 'The request body is larger than this route reads.',
      );
    case 500:
      return problem('Internal server error', 'The request could not be completed.');
    case 503:
      return problem(unavailable?.summary ?? 'Service unavailable', unavailable?.message ?? 'Retry shortly.');
  }
}
