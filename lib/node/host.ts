import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import { retrySlotSnapshot, runSlotTick } from '../../cron/scheduled';
import { SNAPSHOT_LATEST_TICK_MS } from '../../cron/snapshot-job';
import { allowedMethods, createApp, serverMethods } from '../../functions/app';
import { type Config, ConfigError, parseConfig } from '../config';
import type { AppDeps } from '../deps';
import { createCoalescingCache } from '../http/cache';
import { createAnswerRoutes } from '../http/cached-answer';
import { createRenderedJsonCache } from '../http/cached-json';
import { optionsHeaders, responseHeaderRecord } from '../http/headers';
import { HttpProblem, standaloneProblemResponse } from '../http/problem';
import { createLogger, type Logger } from '../log';
import { createLastGoodStore } from '../store/create-last-good';
import { type DatabaseEngine, nodeEngineSpec, openDatabase } from '../store/engines';
import { endBackoffWaits } from '../store/shared-read';
import { SLOT_MS } from '../store/slots';
import { answerClientError, answerConnect, pathOfTarget } from './client-error';
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
  await engine?.migrate().catch(async (error: unknown) => {
    await engine.close().catch(() => {});
    throw error;
  });
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

  // `OPTIONS *` asks what the server as a whole supports (RFC 9110 9.3.7). It names no resource, so
  // Hono's adapter cannot make a URL of it (it got a 400): answered here as the app answers a
  // preflight, with every method some path answers.
  const methods = serverMethods(app);
  const serverWide = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'OPTIONS' || req.url !== '*') return false;
    const requested = req.headers['access-control-request-headers'];
    res.writeHead(
      204,
      responseHeaderRecord({ ...optionsHeaders(methods, requested), 'Cache-Control': 'no-store' }),
    );
    res.end();
    log.info('OPTIONS * 204 0ms');
    return true;
  };
  // An unknown method's 501 names the methods the server implements.
  const clientError = (error: Error, socket: Duplex) => answerClientError(error, socket, methods);

  const server = await listen(
    { fetch: handle, serverWide, immediate, refused, connect, clientError },
    config.port,
  ).catch(async (error: unknown) => {
    // The store opened above is closed (its lock released) before start-up fails.
    await engine?.close().catch(() => {});
    throw describeListenError(error, config.port);
  });
  const port = (server.address() as { port: number }).port;
  if (!config.publicBaseUrl) config.publicBaseUrl = `http://localhost:${port}`;
  // Each slot's jobs at its start; a slot left without a part (an upstream failure, the fleet's
  // back-off) gets a second try of its snapshot as late as the job's bounds allow, as the Worker's
  // minute trigger gives every other slot a second tick 60 s in (SNAPSHOT_LATEST_TICK_MS).
  const scheduler =
    options.scheduler === false
      ? undefined
      : startSlotScheduler(
          {
            first: (at) => runSlotTick(deps, at),
            second: { at: SNAPSHOT_LATEST_TICK_MS, run: (at) => retrySlotSnapshot(deps, at) },
          },
          SLOT_MS,
          deps.now,
        );
  log.info('listening', { port, database: engine?.kind ?? 'injected' });

  return {
    port,
    deps,
    fastAnswers: routes.answered,
    immediateAnswers: () => immediateAnswers,
    async close() {
      // A snapshot read waiting for the fleet's back-off to end (up to 15 s) stops waiting: the tick
      // ends with that part skipped rather than hold the shutdown.
      endBackoffWaits(deps);
      await scheduler?.stop();
      await closeServer(server);
      await engine?.close();
    },
  };
}

/** How long a shutdown lets requests in progress finish before it closes their connections. */
const CLOSE_GRACE_MS = 3_000;

/**
 * Stops accepting connections and resolves once every one is closed: idle keep-alive ones at once,
 * the rest after CLOSE_GRACE_MS. `server.close()` alone waits for a client that keeps a connection
 * open without a whole request (a load balancer's TCP check, a browser's preconnect) for ever.
 */
function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const cutOff = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    server.close(() => {
      clearTimeout(cutOff);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** A port that cannot be listened on, said as the operator can fix it (PORT), not as a system error. */
function describeListenError(error: unknown, port: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE')
    return new ConfigError(`PORT ${port} is already in use; set PORT to a free port`);
  if (code === 'EACCES') return new ConfigError(`PORT ${port} may not be listened on by this user; set PORT`);
  return error;
}

/** How the host's HTTP server answers (see listen). */
interface Answering {
  fetch: (request: Request) => Response | Promise<Response>;
  /** Answers a request about the server as a whole (`OPTIONS *`); false for any other. */
  serverWide: (req: IncomingMessage, res: ServerResponse) => boolean;
  immediate: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The answer to a request the adapter refused (`req` when it refused it on arrival). */
  refused: (error: unknown, req: IncomingMessage | undefined) => Response;
  /** Answers a CONNECT request on its socket (Node hands it over apart from the others). */
  connect: (req: IncomingMessage, socket: Duplex) => void;
  /** Answers a request Node's HTTP parser refused. */
  clientError: (error: Error, socket: Duplex) => void;
}

/**
 * Starts the HTTP server and resolves once it listens: each request is offered to `serverWide`, then
 * to `immediate`, and goes to `fetch` through Hono's Node adapter when neither answers it.
 */
function listen(
  { fetch, serverWide, immediate, refused, connect, clientError }: Answering,
  port: number,
): Promise<Server> {
  // The adapter refuses a request it cannot read synchronously, within the call below: that request
  // is `arriving` then.
  let arriving: IncomingMessage | undefined;
  const viaAdapter = getRequestListener(fetch, {
    hostname: '0.0.0.0',
    errorHandler: (error) => refused(error, arriving),
  });
  const server = createServer((req, res) => {
    try {
      if (serverWide(req, res) || immediate(req, res)) return;
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
    server.on('clientError', clientError);
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

/** The path of an absolute request URL without its query, cheaper than parsing a URL per request. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start < 0 ? '/' : pathOfTarget(url.slice(start));
}
