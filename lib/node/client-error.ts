import type { Duplex } from 'node:stream';
import { responseHeaderRecord } from '../http/headers';
import { HttpProblem, PROBLEM_CONTENT_TYPE, problemBody } from '../http/problem';

// Answers the Node host writes on a raw socket, for requests that never reach the app: those Node's
// HTTP parser refuses, and CONNECT, which Node hands over apart from other requests.

/** What answerClientError sends for a refusal of Node's parser, by its error code (else a 400). */
const CLIENT_ERRORS: Readonly<
  Record<string, { status: 408 | 413 | 431 | 501; reason: string; title: string; detail: string }>
> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    title: 'Request header fields too large',
    detail:
      'The request line and headers are longer than this server reads; no URL of this API is that long.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    title: 'Request timeout',
    detail: 'The request did not arrive in full in time.',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    reason: 'Content Too Large',
    title: 'Request body too large',
    detail: 'The request body carries more chunk extensions than this server reads.',
  },
  // A method Node's parser does not know (FOO), or a known one in lower case (get): RFC 9110 15.6.2
  // makes an unrecognised method a 501, not a 400. (Node reports bytes that are no method at all
  // under the same code; see sentMethodToken.)
  HPE_INVALID_METHOD: {
    status: 501,
    reason: 'Not Implemented',
    title: 'Method not implemented',
    detail: 'The request method is not one this server implements; method names are case-sensitive.',
  },
};

/**
 * Answers a request that Node's HTTP parser refused before the app could see it (a request line and
 * headers over Node's limit, a malformed request, one that came too slowly, a method it does not
 * know) the way the app answers its own errors: a problem+json with CORS and the informational
 * headers, where Node alone would send a bare status line; then closes the connection, which the
 * parser cannot read on from. The 501 for an unknown method names `methods`, all the server
 * implements; bytes with no method token where the method goes (a TLS handshake) get a 400. A
 * connection whose response to an earlier request is already under way is closed without a word,
 * as Node does: an answer now would land inside that response.
 */
export function answerClientError(
  error: Error & { code?: string },
  socket: Duplex,
  methods: readonly string[] = [],
): void {
  const underway = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    ?.headersSent;
  if (!socket.writable || error.code === 'ECONNRESET' || underway) {
    socket.destroy();
    return;
  }
  const notHttp = error.code === 'HPE_INVALID_METHOD' && !sentMethodToken(error);
  const known = error.code === undefined || notHttp ? undefined : CLIENT_ERRORS[error.code];
  const { status, reason, title, detail } = known ?? {
    status: 400 as const,
    reason: 'Bad Request',
    title: 'Bad request',
    detail: notHttp
      ? 'The request could not be read as HTTP/1.1: it does not begin with a method name (a TLS handshake, https:// sent to this plain-HTTP port, looks like this).'
      : 'The request could not be read as HTTP/1.1.',
  };
  const offered = status === 501 && methods.length > 0 ? ` It implements ${methods.join(', ')}.` : '';
  endWithProblem(socket, reason, new HttpProblem(status, title, detail + offered));
}

/** Whether a byte is a tchar of RFC 9110 5.6.2; a method is a token, 1*tchar. */
function isTchar(byte: number | undefined): boolean {
  if (byte === undefined) return false;
  // 0-9, A-Z, a-z, or one of !#$%&'*+-.^_`|~
  return (
    (byte >= 0x30 && byte <= 0x39) ||
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) ||
    "!#$%&'*+-.^_`|~".includes(String.fromCharCode(byte))
  );
}

/**
 * How far back from the offset Node stopped at the method is read. Node stops at the first byte no
 * method it knows goes on with, so within a method's first dozen bytes (the longest it knows,
 * UNSUBSCRIBE, has 11); the token is there when one tchar comes just before that byte.
 */
const METHOD_LOOK_BACK = 32;

/**
 * Whether a request Node refused as HPE_INVALID_METHOD has a method token (1*tchar, then a space)
 * where its method goes: a method this server does not know (501), or else bytes that are no HTTP
 * request at all, such as a TLS ClientHello (0x16 0x03 ...) or line noise (400). Node's error
 * carries the bytes it was reading and the offset it stopped at, inside the method; without them,
 * a method is assumed. Only the bytes from a few before that offset are read: the packet also holds
 * the requests pipelined before this one, each up to 16 KiB, and a search back through them took
 * time quadratic in a URL's length (a 16 KB one stalled the host for most of a second).
 */
function sentMethodToken(error: Error & { rawPacket?: Buffer; bytesParsed?: number }): boolean {
  const { rawPacket, bytesParsed } = error;
  if (rawPacket === undefined || bytesParsed === undefined) return true;
  const at = Math.max(0, Math.min(bytesParsed, rawPacket.length));
  let start = at;
  while (start > 0 && at - start < METHOD_LOOK_BACK && isTchar(rawPacket[start - 1])) start--;
  // The rest of the method: one pass, ending at the first byte that is no tchar.
  let end = at;
  while (end < rawPacket.length && isTchar(rawPacket[end])) end++;
  // A packet that ends inside the token is given the benefit of the doubt.
  return end > start && (end === rawPacket.length || rawPacket[end] === 0x20);
}

/**
 * Answers a CONNECT, which Node's server hands to a `connect` listener instead of the app (with no
 * listener it drops the connection unanswered): this server is no proxy, so, as the app answers any
 * method a path does not serve, a 405 with the path's methods in `Allow`, or a 404 where no resource
 * is. Returns the status for the request log (undefined when the connection was closed unanswered).
 */
export function answerConnect(
  target: string,
  socket: Duplex,
  methodsOf: (path: string) => string[],
): number | undefined {
  // Node hands the socket over without its error listener: a client's reset would throw otherwise.
  socket.on('error', () => socket.destroy());
  // An earlier request's answer is still to come on this connection (pipelined): ours would go out
  // in its place. Closed without a word, as Node does.
  if ((socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return undefined;
  }
  const path = pathOfTarget(target);
  const methods = path === '-' ? [] : methodsOf(path);
  const problem =
    methods.length > 0
      ? new HttpProblem(405, 'Method not allowed', `CONNECT is not allowed on ${path}.`, {
          allow: [...methods, 'OPTIONS'],
        })
      : new HttpProblem(404, 'Not found', 'There is no resource at that target; see /openapi.json.');
  endWithProblem(socket, problem.status === 405 ? 'Method Not Allowed' : 'Not Found', problem);
  // The server no longer tracks this socket as HTTP: once the answer is out it is closed whole, or a
  // client that keeps its side open would hold the server's close (and a shutdown) open.
  socket.once('finish', () => socket.destroy());
  return problem.status;
}

/** Writes `problem` as a whole HTTP/1.1 response on a raw socket, with the app's headers, and closes it. */
function endWithProblem(socket: Duplex, reason: string, problem: HttpProblem): void {
  const body = JSON.stringify(problemBody(problem));
  const headers = responseHeaderRecord({
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Cache-Control': 'no-store',
    'Content-Length': String(Buffer.byteLength(body)),
    ...(problem.extra.allow ? { Allow: problem.extra.allow.join(', ') } : {}),
    Connection: 'close',
  });
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${problem.status} ${reason}\r\n${head.join('')}\r\n${body}`);
}

/** The path of a request target without its query (`-` for one that is not a path). */
export function pathOfTarget(target: string): string {
  if (target.charCodeAt(0) !== 47) return '-';
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}
