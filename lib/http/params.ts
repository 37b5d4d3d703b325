import { z } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import { HttpProblem, type InvalidParam } from './problem';

/** Allowed values of every enumerated query parameter, by name, so a 400 can always list them. */
const allowedByName = new Map<string, readonly string[]>();

/**
 * Declares an enumerated query parameter for a route: one schema serves validation and OpenAPI,
 * and the allowed values are remembered for error messages. With `integer`, the values are whole
 * numbers (SPEC 4.1 types `hours` as an integer): the document says so, and validation still takes
 * exactly the listed spellings (`24`, never `024` or `24.0`).
 */
export function enumQuery<const T extends readonly [string, ...string[]]>(
  name: string,
  values: T,
  options: { description: string; default?: T[number]; integer?: boolean },
) {
  allowedByName.set(name, values);
  const base = z.enum(values);
  const param = { param: { name, in: 'query' as const, required: options.default === undefined } };
  // How the document shows a value: as sent, or as the whole number it spells.
  const shown = (value: string) => (options.integer ? Number(value) : value);
  const type = options.integer ? { type: 'integer' as const, enum: values.map(shown) } : {};
  if (options.default === undefined) {
    return base.openapi({ ...param, description: options.description, ...type, example: shown(values[0]) });
  }
  return base
    .optional()
    .default(options.default)
    .openapi({ ...param, description: options.description, ...type, default: shown(options.default) });
}

/** Quotes a client-supplied value for an error message, shortened so a huge value is not echoed back. */
function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** Describes what is wrong with each query parameter named in a zod error. */
export function describeInvalidParams(error: ZodError, input: Record<string, unknown>): InvalidParam[] {
  const names = [...new Set(error.issues.map((issue) => String(issue.path[0] ?? 'query')))];
  return names.map((name) => {
    const value = input[name];
    const allowed = allowedByName.get(name);
    let reason: string;
    const variant = Object.keys(input).find((k) => k !== name && k.toLowerCase() === name.toLowerCase());
    if (value === undefined && variant)
      reason = `is required (${variant} was given: parameter names are case-sensitive)`;
    else if (value === undefined) reason = 'is required';
    else if (Array.isArray(value)) reason = 'is repeated; give it exactly once';
    else if (value === '') reason = 'is empty';
    else reason = `${quote(value)} is not an allowed value (values are case-sensitive)`;
    return { name, reason, ...(allowed ? { allowed: [...allowed] } : {}) };
  });
}

/** Turns a failed query validation into the 400 problem the app renders. */
export function invalidQueryProblem(error: ZodError, input: Record<string, unknown>): HttpProblem {
  const invalidParams = describeInvalidParams(error, input);
  const detail = invalidParams
    .map((p) => `${p.name} ${p.reason}${p.allowed ? `; allowed: ${p.allowed.join(', ')}` : ''}`)
    .join('. ');
  return new HttpProblem(400, 'Invalid query parameter', detail, { invalidParams });
}

/**
 * A query that validated but names a parameter in another case (`RANGE=7d` for `range`): the value
 * would be dropped and the default served in silence, which SPEC decision 7 forbids for a bad value.
 * Other unknown names are ignored (a cache-busting `?_=123` must keep working). Undefined when none.
 */
export function misnamedQueryProblem(
  queries: Record<string, string[]>,
  declared: readonly string[],
): HttpProblem | undefined {
  const invalidParams: InvalidParam[] = [];
  for (const name of Object.keys(queries)) {
    const meant = declared.find((d) => d !== name && d.toLowerCase() === name.toLowerCase());
    if (!meant) continue;
    const allowed = allowedByName.get(meant);
    invalidParams.push({
      name,
      reason: `is not a parameter of this endpoint; parameter names are case-sensitive: did you mean ${meant}?`,
      ...(allowed ? { allowed: [...allowed] } : {}),
    });
  }
  if (invalidParams.length === 0) return undefined;
  const detail = invalidParams.map((p) => `${p.name} ${p.reason}`).join('. ');
  return new HttpProblem(400, 'Invalid query parameter', detail, { invalidParams });
}
