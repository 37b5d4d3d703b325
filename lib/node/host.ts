import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import { runScheduledJobs } from '../../cron/scheduled';
import { allowedMethods, createApp } from '../../functions/app';
import { type Config, parseConfig } from '../config';
import type { AppDeps } from '../deps';
import { createCoalescingCache } from '../http/cache';
import { createAnswerRoutes } from '../http/cached-answer';
import { createRenderedJsonCache } from '../http/cached-json';
import { responseHeaderRecord } from '../http/headers';
import { HttpProblem, PROBLEM_CONTENT_TYPE, problemBody, standaloneProblemResponse } from '../http/problem';
import { createLogger, type Logger } from '../log';
import { createLastGoodStore } from '../store/create-last-good';
import { type DatabaseEngine, nodeEngineSpec, openDatabase } from '../store/engines';
import { SLOT_MS } from '../store/slots';
import { startSlotScheduler } from './scheduler';
import { createNodeWebAssets } from './web-assets';

/** A running Node host. */
export interface NodeHost {
  port: number;
  deps: AppDeps;
  /** How many requests the fast path answered without running the app. */
  fastAnswers(): number;
  /** How many of those were immediate answers, written without Hono's adapter. */
  immediateAnswers(): number;
  close(): Promise<void>;
}

/**
 * Starts the app on a Node HTTP server with the in-process scheduler. `PUBLIC_BASE_URL` defaults to
 * `http://localhost:PORT`. Pass `scheduler: false` to serve without running scheduled jobs.
 */
export async function startNodeHost(
  env: Record<string, string | undefined>,
  options: { log?: Logger; scheduler?: boolean; deps?: Partial<AppDeps> } = {},
): Promise<NodeHost> {
  const config: Config = parseConfig(env);
  const log = options.log ?? createLogger();
  // The embedded (or configured) database is migrated before the first request or snapshot.
  const engine: DatabaseEngine | undefined = options.deps?.withDb
    ? undefined
    : await openDatabase(nodeEngineSpec(config));
  await engine?.migrate();
  const deps: AppDeps = {
    config,
    fetch: (input, init) => fetch(input, init),
    now: Date.now,
    log,
    cache: createCoalescingCache(),
    lastGood: createLastGoodStore(config),
    withDb: engine ? engine.withDb : () => Promise.reject(new Error('no database')),
    state: new Map(),
    web: createNodeWebAssets(),
    ...options.deps,
  };
  // The fast path: a GET of a URL the app already answered from its rendered cache is answered again
  // by the same steps without Hono's routing, middleware and validation (lib/http/cached-answer.ts);
  // while its last answer is current, at once, on Node's own request and response (`immediate`).
  const routes = createAnswerRoutes(createRenderedJsonCache());
  const app = createApp(deps, { routes });
  // The request log: one line per request, handed to the logger (main.ts writes it in batches).
  const logged = (request: Request, res: Response, started: number) => {
    log.info(
      `${request.method} ${pathOf(request.url)} ${res.status} ${Math.round(performance.now() - started)}ms`,
    );
    return res;
  };
  const answer = async (request: Request, started: number) => {
    const fast = request.method === 'GET' ? await routes.answer(request, deps) : undefined;
    return logged(request, fast ?? (await app.fetch(request)), started);
  };
  const handle = (request: Request) => {
    const started = performance.now();
    // The app answers its own errors; should it ever fail to, the request still gets a problem+json
    // and its log line.
    return answer(request, started).catch((error: unknown) => {
      log.error('request failed', { error: String(error) });
      return logged(request, standaloneProblemResponse(INTERNAL_ERROR), started);
    });
  };
  // The immediate answer: the URL as Hono's adapter spells it for a host it takes as it is (any
  // other host, and any target it would normalise, is looked up under another spelling than its
  // remembered one, so it misses here and the adapter answers it), and the answer's headers,
  // Content-Length among them, written as the adapter writes them.
  let immediateAnswers = 0;
  const immediate = (req: IncomingMessage, res: ServerResponse): boolean => {
    const started = performance.now();
    const target = req.url ?? '';
    const hostName = req.headers.host;
    if (req.method !== 'GET' || !hostName || !PLAIN_HOST.test(hostName) || target.charCodeAt(0) !== 47)
      return false;
    const now = routes.answerNow(`http://${hostName}${target}`, req.headers['if-none-match'], deps);
    if (!now) return false;
    res.writeHead(now.status, now.headers);
    res.end(now.body ?? undefined);
    immediateAnswers += 1;
    log.info(`GET ${pathOfTarget(target)} ${now.status} ${Math.round(performance.now() - started)}ms`);
    return true;
  };
  // A request Hono's adapter cannot make a Request of (a Host header with a path or a port it
  // refuses, a backslash in the path, an absolute URL it cannot read) gets the app's problem+json
  // and its log line, where the adapter alone sends a bare 400 and the log would miss it. (`handle`
  // never fails, so the adapter hands nothing else here; anything else would be a 500.)
  const refused = (error: unknown, req: IncomingMessage | undefined): Response => {
    const unreadable = error instanceof RequestError;
    if (!unreadable) log.error('request failed', { error: String(error) });
    const res = standaloneProblemResponse(unreadable ? UNREADABLE_URL : INTERNAL_ERROR);
    log.info(`${req?.method ?? '-'} ${pathOfTarget(req?.url ?? '-')} ${res.status} 0ms`);
    return res;
  };

  const connect = (req: IncomingMessage, socket: Duplex) => {
    const status = answerConnect(req.url ?? '-', socket, (path) => allowedMethods(app, path));
    log.info(`CONNECT ${pathOfTarget(req.url ?? '-')} ${status ?? 'closed'} 0ms`);
  };

  const server = await listen({ fetch: handle, immediate, refused, connect }, config.port);
  const port = (server.address() as { port: number }).port;
  if (!config.publicBaseUrl) config.publicBaseUrl = `http://localhost:${port}`;
  const scheduler =
    options.scheduler === false ? undefined : startSlotScheduler((at) => runScheduledJobs(deps, at), SLOT_MS);
  log.info('listening', { port, database: engine?.kind ?? 'injected' });

  return {
    port,
    deps,
    fastAnswers: routes.answered,
    immediateAnswers: () => immediateAnswers,
    async close() {
      await scheduler?.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine?.close();
    },
  };
}

/** How the host's HTTP server answers (see listen). */
interface Answering {
  fetch: (request: Request) => Response | Promise<Response>;
  immediate: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The answer to a request the adapter refused (`req` when it refused it on arrival). */
  refused: (error: unknown, req: IncomingMessage | undefined) => Response;
  /** Answers a CONNECT request on its socket (Node hands it over apart from the others). */
  connect: (req: IncomingMessage, socket: Duplex) => void;
}

/**
 * Starts the HTTP server and resolves once it listens: each request is offered to `immediate` first,
 * and goes to `fetch` through Hono's Node adapter when `immediate` does not answer it.
 */
function listen({ fetch, immediate, refused, connect }: Answering, port: number): Promise<Server> {
  // The adapter refuses a request it cannot read synchronously, within the call below: that request
  // is `arriving` then.
  let arriving: IncomingMessage | undefined;
  const viaAdapter = getRequestListener(fetch, {
    hostname: '0.0.0.0',
    errorHandler: (error) => refused(error, arriving),
  });
  const server = createServer((req, res) => {
    try {
      if (immediate(req, res)) return;
    } catch {
      // Not expected (fixed headers, pure checks). An answer already written stands; one begun is
      // cut off; else the adapter answers.
      if (res.writableEnded) return;
      if (res.headersSent) return void res.destroy();
    }
    arriving = req;
    try {
      return viaAdapter(req, res);
    } finally {
      arriving = undefined;
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.on('clientError', answerClientError);
    server.on('connect', connect);
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}

/**
 * A Host header that Hono's Node adapter takes as it is (its own test, `reValidHost`): lower case,
 * no path, a port from 1000 to 59999 if any; for any other its URL is normalised or refused.
 */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

const UNREADABLE_URL = new HttpProblem(
  400,
  'Bad request',
  'The request target and Host header do not form a valid URL.',
);
const INTERNAL_ERROR = new HttpProblem(500, 'Internal error', 'The request could not be answered.');

/** What answerClientError sends for a refusal of Node's parser, by its error code (else a 400). */
const CLIENT_ERRORS: Readonly<
  Record<string, { status: 408 | 413 | 431; reason: string; title: string; detail: string }>
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
};

/**
 * Answers a request that Node's HTTP parser refused before the app could see it (a request line and
 * headers over Node's limit, a malformed request, one that came too slowly) the way the app answers
 * its own errors: a problem+json with CORS and the informational headers, where Node alone would send
 * a bare status line; then closes the connection, which the parser cannot read on from. A connection
 * whose response to an earlier request is already under way is closed without a word, as Node does:
 * an answer now would land inside that response.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const underway = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    ?.headersSent;
  if (!socket.writable || error.code === 'ECONNRESET' || underway) {
    socket.destroy();
    return;
  }
  const known = error.code === undefined ? undefined : CLIENT_ERRORS[error.code];
  const { status, reason, title, detail } = known ?? {
    status: 400 as const,
    reason: 'Bad Request',
    title: 'Bad request',
    detail: 'The request could not be read as HTTP/1.1.',
  };
  endWithProblem(socket, reason, new HttpProblem(status, title, detail));
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
function pathOfTarget(target: string): string {
  if (target.charCodeAt(0) !== 47) return '-';
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

/** The path of an absolute request URL without its query, cheaper than parsing a URL per request. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start < 0 ? '/' : pathOfTarget(url.slice(start));
}
