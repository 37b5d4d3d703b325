import { isAddressOnlyHost } from './upstream/provider-label';

/** Structured one-line logging; callers pass labels, never URLs. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;
// Bare addresses in driver messages (`connect ECONNREFUSED 10.0.0.5:5432`), with their port if any:
// IPv4, bracketed IPv6, unbracketed IPv6 as Node prints it (`fd00::5:5432`, `::ffff:10.0.0.5:5432`:
// with a `::`, or eight groups; a time such as 23:00:00 has neither) and localhost.
const ADDRESS_PATTERN = new RegExp(
  String.raw`(?<![\w.:])(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]*:[0-9a-f:.]*\]|` +
    '(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?|' +
    String.raw`::[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)(?:\.\d{1,3}){0,3}|` +
    // An address may end a sentence: only a dot followed by more of a name continues it.
    String.raw`[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){7}|localhost)(?::\d{1,5})?(?!\w|\.\w)`,
  'gi',
);

const LOCALHOST = /localhost/i;
// A dotted IPv4 address has a digit, a dot and a digit; every other form either pattern matches but
// localhost has a ':'.
const DIGIT_DOT_DIGIT = /\d\.\d/;

/**
 * Replaces every URL in a text by its public host name without the port (`[url]` for an address-only
 * host), and every bare IP address or `localhost` (with its port) by `[address]`, so neither an API
 * key in a path or query nor an internal address or port ever reaches a log (SPEC.md extension 20).
 */
export function redactUrls(text: string): string {
  // Both patterns need a ':' (a scheme, an IPv6 address, a port), a digit-dot-digit (an IPv4 address)
  // or the word localhost: most log lines (one per request, `/openapi.json` included) have none, and
  // skip the two regular expressions.
  if (!text.includes(':') && !DIGIT_DOT_DIGIT.test(text) && !LOCALHOST.test(text)) return text;
  return text
    .replace(URL_PATTERN, (match) => {
      try {
        const { hostname } = new URL(match);
        return hostname && !isAddressOnlyHost(hostname) ? hostname : '[url]';
      } catch {
        return '[url]';
      }
    })
    .replace(ADDRESS_PATTERN, '[address]');
}

/** Creates a logger that writes one redacted line per event to `write` (console by default). */
export function createLogger(write: (line: string) => void = (line) => console.log(line)): Logger {
  // The time is formatted once per millisecond (a busy server logs many lines in one), and never
  // redacted: an ISO time matches neither pattern.
  let lastMs = Number.NaN;
  let lastIso = '';
  const emit = (level: string, message: string, fields?: Record<string, unknown>) => {
    const extra = fields ? ` ${JSON.stringify(fields)}` : '';
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      lastIso = new Date(now).toISOString();
    }
    write(`${lastIso} ${level} ${redactUrls(message + extra)}`);
  };
  return {
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
  };
}
