import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type FaultMode, type FaultOptions, FaultSet } from './faults';

/** One HTTP request as a simulator sees it. */
export interface SimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP answer. */
export interface SimReply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/** What a simulator plugs into the shared server: how to name, answer and fail a request. */
export interface SimRoutes {
  /** Route names (HTTP) or JSON-RPC methods a request carries: counted and matched against fault filters. */
  keysOf(request: SimRequest): string[];
  /** The normal answer; data-level faults (rpc-error, stale, lag, absurd...) are applied by the simulator. */
  answer(request: SimRequest, faults: FaultSet): SimReply;
  /** The provider's own body for an HTTP 500 or 429. */
  errorReply(status: 429 | 500): SimReply;
}

/** One request as recorded by a simulator. */
export interface RequestRecord {
  method: string;
  url: string;
  keys: string[];
}

/** Request counters: totals, per JSON-RPC method (or HTTP route name), and the last requests in order. */
export interface RequestCounters {
  total: number;
  byMethod: Record<string, number>;
  log: RequestRecord[];
}

/** A loopback HTTP server with fault injection; each simulator wraps one. */
export interface SimServer {
  readonly port: number;
  readonly origin: string;
  readonly requests: RequestCounters;
  readonly faults: FaultSet;
  fault(mode: FaultMode, options?: FaultOptions): Promise<void>;
  /** Clears faults and counters, releases hung requests and listens again after `refuse`. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const MAX_LOG = 500;
/** What an edge firewall in front of a provider answers a request it blocks. */
const FORBIDDEN_PAGE =
  '<html><head><title>403 Forbidden</title></head><body><h1>403 Forbidden</h1></body></html>';
const TRANSPORT_FAULTS: readonly FaultMode[] = [
  'refuse',
  'hang',
  'http-500',
  'http-403',
  'http-429',
  'malformed',
];
const JSON_TYPE = 'application/json; charset=utf-8';

/** Starts a simulator server on 127.0.0.1 (port 0 picks a free one). */
export async function startSimServer(routes: SimRoutes, port = 0): Promise<SimServer> {
  const faults = new FaultSet();
  const requests: RequestCounters = { total: 0, byMethod: {}, log: [] };
  const sockets = new Set<Socket>();
  const pending = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let listening = false;
  let closed = false;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const request: SimRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      handle(request, req.url ?? '/', res);
    });
  });
  server.keepAliveTimeout = 1000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function handle(request: SimRequest, rawUrl: string, res: ServerResponse): void {
    const keys = routes.keysOf(request);
    requests.total += 1;
    for (const key of keys) requests.byMethod[key] = (requests.byMethod[key] ?? 0) + 1;
    requests.log.push({ method: request.method, url: rawUrl, keys });
    if (requests.log.length > MAX_LOG) requests.log.shift();

    if (faults.take('hang', keys)) {
      pending.add(res);
      return;
    }
    const delay = faults.take('delay', keys);
    if (delay) {
      pending.add(res);
      const timer = setTimeout(() => {
        timers.delete(timer);
        pending.delete(res);
        respond(request, keys, res);
      }, delay.ms ?? 1000);
      timers.add(timer);
      return;
    }
    respond(request, keys, res);
  }

  function respond(request: SimRequest, keys: string[], res: ServerResponse): void {
    let reply: SimReply;
    const tooMany = faults.take('http-429', keys);
    if (faults.take('http-500', keys)) {
      reply = routes.errorReply(500);
    } else if (faults.take('http-403', keys)) {
      reply = { status: 403, headers: { 'content-type': 'text/html' }, body: FORBIDDEN_PAGE };
    } else if (tooMany) {
      const base = routes.errorReply(429);
      reply = { ...base, headers: { ...base.headers, 'retry-after': String(tooMany.retryAfter ?? 30) } };
    } else {
      try {
        reply = routes.answer(request, faults);
      } catch (error) {
        // A simulator bug must be visible to the test, not look like a provider fault.
        reply = { status: 500, headers: { 'content-type': 'text/plain' }, body: `simulator bug: ${error}` };
      }
      const malformed = faults.take('malformed', keys);
      if (malformed) {
        reply = {
          ...reply,
          status: 200,
          body: malformed.body ?? reply.body.slice(0, reply.body.length >> 1),
        };
      }
    }
    res.writeHead(reply.status, { 'content-type': JSON_TYPE, ...reply.headers });
    res.end(reply.body);
  }

  function listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });
  }

  function dropConnections(): void {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    pending.clear();
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  }

  function stopListening(): Promise<void> {
    if (!listening) return Promise.resolve();
    listening = false;
    return new Promise((resolve) => {
      server.close(() => resolve());
      dropConnections();
    });
  }

  await listen();
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('simulator has no TCP address');
  port = address.port;

  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    faults,
    async fault(mode, options) {
      // One outcome per request: a new transport fault replaces the previous one (refuse included).
      if (TRANSPORT_FAULTS.includes(mode)) {
        for (const other of TRANSPORT_FAULTS) faults.delete(other);
      }
      faults.set(mode, options);
      if (mode === 'refuse') await stopListening();
      else if (!listening && !closed) await listen();
    },
    async reset() {
      faults.clear();
      requests.total = 0;
      for (const key of Object.keys(requests.byMethod)) delete requests.byMethod[key];
      requests.log.length = 0;
      for (const res of pending) res.socket?.destroy();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      pending.clear();
      if (!listening && !closed) await listen();
    },
    async close() {
      closed = true;
      faults.clear();
      await stopListening();
    },
  };
}

/** A JSON reply. */
export function jsonReply(status: number, value: unknown, headers?: Record<string, string>): SimReply {
  return { status, body: JSON.stringify(value), ...(headers ? { headers } : {}) };
}
