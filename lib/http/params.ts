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

/** Shortens a client-supplied text for an error message, so a huge value or name is not echoed back. */
function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Quotes a client-supplied value for an error message, shortened. */
function quote(value: unknown): string {
  return JSON.stringify(shorten(typeof value === 'string' ? value : JSON.stringify(value)));
}

/** A sent parameter name as a message shows it: shortened, and quoted when it holds whitespace. */
function shownName(name: string): string {
  const short = shorten(name);
  return /^\S+$/.test(short) ? short : JSON.stringify(short);
}

/** A bracket suffix (`[]`, `[0]`, `[x]`, `[a][b]`): how qs, axios and PHP-style forms send arrays. */
const BRACKET_SUFFIX = /(\[[^\]]*\])+(?=\s*$)/;

/**
 * Says how a sent query name misspells a declared one (another case, an array-style bracket suffix,
 * whitespace around it), or undefined when it is that name or an unrelated one. Such a name would be
 * dropped and the parameter read as absent, so the caller refuses it rather than serve a default.
 */
function describeMisspelling(sent: string, declared: string): string | undefined {
  if (sent === declared) return undefined;
  const unbracketed = sent.replace(BRACKET_SUFFIX, '');
  const bare = unbracketed.trim();
  if (bare.toLowerCase() !== declared.toLowerCase()) return undefined;
  const hints: string[] = [];
  if (unbracketed !== sent) hints.push('array-style names with brackets are not read');
  if (bare !== unbracketed) hints.push('whitespace around a name is not ignored');
  if (bare !== declared) hints.push('parameter names are case-sensitive');
  return hints.join('; ');
}

/** Describes what is wrong with each query parameter named in a zod error. */
export function describeInvalidParams(error: ZodError, input: Record<string, unknown>): InvalidParam[] {
  const names = [...new Set(error.issues.map((issue) => String(issue.path[0] ?? 'query')))];
  return names.map((name) => {
    const value = input[name];
    const allowed = allowedByName.get(name);
    let reason: string;
    const variant = Object.keys(input)
      .map((sent) => ({ sent, hint: describeMisspelling(sent, name) }))
      .find((v) => v.hint !== undefined);
    if (value === undefined && variant)
      reason = `is required (${shownName(variant.sent)} was given: ${variant.hint})`;
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

/** At most this many misspelt names are listed in one problem; a query may carry thousands. */
const MAX_MISSPELT_LISTED = 10;

/**
 * A query that validated but names a parameter in a way it is not read: in another case
 * (`RANGE=7d`), array-style (`range[]=7d`, `range[0]=7d`, as qs and axios send arrays) or with
 * whitespace around it. The value would be dropped and the default served in silence, which SPEC
 * decision 7 forbids for a bad value. Other unknown names are ignored (a cache-busting `?_=123` must
 * keep working). Undefined when none.
 */
export function misnamedQueryProblem(
  queries: Record<string, string[]>,
  declared: readonly string[],
): HttpProblem | undefined {
  const invalidParams: InvalidParam[] = [];
  const details: string[] = [];
  for (const name of Object.keys(queries)) {
    const meant = declared
      .map((d) => ({ d, hint: describeMisspelling(name, d) }))
      .find((m) => m.hint !== undefined);
    if (!meant) continue;
    const allowed = allowedByName.get(meant.d);
    const reason = `is not a parameter of this endpoint; ${meant.hint}: did you mean ${meant.d}?`;
    invalidParams.push({ name: shorten(name), reason, ...(allowed ? { allowed: [...allowed] } : {}) });
    details.push(`${shownName(name)} ${reason}`);
  }
  if (invalidParams.length === 0) return undefined;
  const more = invalidParams.length - MAX_MISSPELT_LISTED;
  const detail =
    // Each sentence ends with its question mark.
    details.slice(0, MAX_MISSPELT_LISTED).join(' ') +
    (more > 0 ? ` ${more} more such names are not listed.` : '');
  return new HttpProblem(400, 'Invalid query parameter', detail, {
    invalidParams: invalidParams.slice(0, MAX_MISSPELT_LISTED),
  });
}
