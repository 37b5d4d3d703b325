import { z } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import { HttpProblem, type InvalidParam } from './problem';

/** Allowed values of every enumerated query parameter, by name, so a 400 can always list them. */
const allowedByName = new Map<string, readonly string[]>();
/** Names of the parameters whose values are whole numbers (`integer`), whose 400 says so, not case. */
const integerNames = new Set<string>();
/** A whole number as the allowed values spell one: digits, no sign, no leading zero. */
const PLAIN_INTEGER = /^(0|[1-9][0-9]*)$/;

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
  if (options.integer) integerNames.add(name);
  else integerNames.delete(name);
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

/**
 * A bracket suffix (`[]`, `[0]`, `[x]`, `[a][b]`), then only whitespace: how qs, axios and
 * PHP-style forms send arrays. Anchored, and tried only from a name's first `[`: an unanchored
 * search tried again from every `[`, in time quadratic in the name's length (a name of 16k `[`
 * took seconds).
 */
const BRACKET_SUFFIX = /^(?:\[[^\]]*\])+(?=\s*$)/;

/**
 * `sent` without its bracket suffix, which is looked for from its first `[` only: one from a later
 * `[` would leave a `[` in the name, and no declared name holds one.
 */
function withoutBracketSuffix(sent: string): string {
  const open = sent.indexOf('[');
  if (open < 0) return sent;
  const suffix = BRACKET_SUFFIX.exec(sent.slice(open))?.[0];
  return suffix === undefined ? sent : sent.slice(0, open) + sent.slice(open + suffix.length);
}

/**
 * Says how a sent query name misspells a declared one (another case, an array-style bracket suffix,
 * whitespace around it), or undefined when it is that name or an unrelated one. Such a name would be
 * dropped and the parameter read as absent, so the caller refuses it rather than serve a default.
 */
function describeMisspelling(sent: string, declared: string): string | undefined {
  if (sent === declared) return undefined;
  const unbracketed = withoutBracketSuffix(sent);
  const bare = unbracketed.trim();
  if (bare.toLowerCase() !== declared.toLowerCase()) return undefined;
  const hints: string[] = [];
  if (unbracketed !== sent) hints.push('array-style names with brackets are not read');
  if (bare !== unbracketed) hints.push('whitespace around a name is not ignored');
  if (bare !== declared) hints.push('parameter names are case-sensitive');
  return hints.join('; ');
}

/** A sent query name that misspells a declared parameter: the name sent, the one meant, and how. */
interface Misnamed {
  sent: string;
  meant: string;
  hint: string;
}

/** Each sent name that misspells one of `declared` (see describeMisspelling), in the order sent. */
function findMisnamed(sent: readonly string[], declared: readonly string[]): Misnamed[] {
  const found: Misnamed[] = [];
  for (const name of sent) {
    for (const meant of declared) {
      const hint = describeMisspelling(name, meant);
      if (hint !== undefined) {
        found.push({ sent: name, meant, hint });
        break;
      }
    }
  }
  return found;
}

/**
 * Describes what is wrong with each refused query parameter; a missing one that was sent under a
 * misspelt name says so (`cited`: that name for each such parameter).
 */
function describeInvalidParams(
  names: readonly string[],
  input: Record<string, unknown>,
  cited: readonly Misnamed[],
): InvalidParam[] {
  return names.map((name) => {
    const value = input[name];
    const allowed = allowedByName.get(name);
    let reason: string;
    const variant = cited.find((m) => m.meant === name);
    if (value === undefined && variant)
      reason = `is required (${shownName(variant.sent)} was given: ${variant.hint})`;
    else if (value === undefined) reason = 'is required';
    else if (Array.isArray(value)) reason = 'is repeated; give it exactly once';
    else if (value === '') reason = 'is empty';
    else reason = `${quote(value)} is not an allowed value${notAllowedHint(name, value)}`;
    return { name, reason, ...(allowed ? { allowed: [...allowed] } : {}) };
  });
}

/**
 * What to say of a value not in the set: of words, that case counts; of a whole number, that it is
 * written as listed (`1.0` and `01` are refused); nothing for a plain whole number that is just not
 * one of them (`5`).
 */
function notAllowedHint(name: string, value: unknown): string {
  if (!integerNames.has(name)) return ' (values are case-sensitive)';
  if (typeof value === 'string' && PLAIN_INTEGER.test(value)) return '';
  return ' (an integer, written as listed: no decimal point, sign, spaces or leading zeros)';
}

/** At most this many misspelt names are listed in one problem; a query may carry thousands. */
const MAX_MISSPELT_LISTED = 10;

/**
 * The 400 for a query, or undefined when it is fine. It names every sent name that spells a
 * declared parameter in a way it is not read: in another case (`RANGE=7d`), array-style
 * (`range[]=7d`, `range[0]=7d`, as qs and axios send arrays) or with whitespace around it, whose
 * value would be dropped and the default served in silence (SPEC decision 7 forbids that for a bad
 * value); then every parameter the validation (`error`) refused. Misspelt names come first, in the
 * same problem: a client learns at once that a value it meant was ignored, not only after fixing
 * the rest. Other unknown names are ignored (a cache-busting `?_=123` must keep working).
 */
export function invalidQueryProblem(
  queries: Record<string, string[]>,
  declared: readonly string[],
  error?: ZodError,
): HttpProblem | undefined {
  // As the validator saw them: a lone value as a string, a repeated one as an array.
  const input = Object.fromEntries(Object.entries(queries).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
  const misnamed = findMisnamed(Object.keys(queries), declared);
  const refused = [...new Set(error?.issues.map((issue) => String(issue.path[0] ?? 'query')))];
  // A missing parameter's reason names the first misspelt name it was sent under; not listed twice.
  const cited = refused
    .filter((name) => input[name] === undefined)
    .flatMap((name) => misnamed.find((m) => m.meant === name) ?? []);
  const uncited = misnamed.filter((m) => !cited.includes(m));
  const invalid = describeInvalidParams(refused, input, cited);
  if (uncited.length === 0 && invalid.length === 0) return undefined;

  const misspelt: InvalidParam[] = [];
  const details: string[] = [];
  for (const m of uncited.slice(0, MAX_MISSPELT_LISTED)) {
    const allowed = allowedByName.get(m.meant);
    const reason = `is not a parameter of this endpoint; ${m.hint}: did you mean ${m.meant}?`;
    misspelt.push({ name: shorten(m.sent), reason, ...(allowed ? { allowed: [...allowed] } : {}) });
    // Each sentence ends with its question mark.
    details.push(`${shownName(m.sent)} ${reason}`);
  }
  const more = uncited.length - misspelt.length;
  if (more > 0) details.push(`${more} more such names are not listed.`);
  if (invalid.length > 0) {
    const describe = (p: InvalidParam) =>
      `${p.name} ${p.reason}${p.allowed ? `; allowed: ${p.allowed.join(', ')}` : ''}`;
    details.push(invalid.map(describe).join('. '));
  }
  return new HttpProblem(400, 'Invalid query parameter', details.join(' '), {
    invalidParams: [...misspelt, ...invalid],
  });
}

/** What each part of a request hono validates is called in a problem's title. */
const REQUEST_PART: Readonly<Record<string, string>> = {
  param: 'path parameter',
  header: 'request header',
  cookie: 'cookie',
  json: 'request body',
  form: 'form field',
};

/**
 * The 400 for a request part other than the query (`target` as hono names it: param, header,
 * cookie, json, form) that its schema refused: each field by name (`body` for a JSON body refused
 * whole), what was wrong and, for an enumeration, the allowed values. No route declares such a
 * schema yet; the app gives this rather than the validator's own JSON 400.
 */
export function invalidRequestProblem(target: string, error: ZodError): HttpProblem {
  const part = REQUEST_PART[target] ?? target;
  const invalid: InvalidParam[] = error.issues.map((issue) => {
    const name = shorten(issue.path.map(String).join('.') || (target === 'json' ? 'body' : target));
    // An enumeration's message lists its values; they go to `allowed`, as for a query parameter.
    if (issue.code === 'invalid_value')
      return { name, reason: 'is not an allowed value', allowed: issue.values.map(String) };
    return { name, reason: issue.message };
  });
  const describe = (p: InvalidParam) =>
    p.allowed ? `${p.name} ${p.reason}; allowed: ${p.allowed.join(', ')}` : `${p.name}: ${p.reason}`;
  return new HttpProblem(400, `Invalid ${part}`, invalid.map(describe).join('. '), {
    invalidParams: invalid,
  });
}
