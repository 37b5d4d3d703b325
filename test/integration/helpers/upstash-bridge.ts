import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RespError, type RespValue, sendCommands } from './redis-server';

/** Ways the bridge can misbehave on purpose, on top of whatever Redis itself does. */
export type BridgeFault = 'garbage' | 'http-500' | 'hang' | 'wrong-shape' | 'slow' | 'lost-answer';

/** A test-only server speaking the Upstash Redis REST protocol in front of a real redis-server. */
export interface UpstashBridge {
  url: string;
  token: string;
  /** Every command received, in order (as the JSON arrays the client sent). */
  commands: string[][];
  /**
   * Sets a fault until cleared with null; `slow` answers every call after `delayMs` (default 2000);
   * `lost-answer` carries the command out and then drops the connection instead of answering.
   */
  fault(mode: BridgeFault | null, delayMs?: number): void;
  close(): Promise<void>;
}

/**
 * Starts the bridge: `POST /` with a JSON command array answers `{"result": ...}` or `{"error": "..."}`
 * (HTTP 400); `POST /pipeline` and `POST /multi-exec` take an array of commands and answer an array of
 * those objects. The bearer token is checked (401 otherwise), and with `Upstash-Encoding: base64` every
 * string in a result is base64-encoded, as Upstash does. Redis unreachable gives HTTP 500.
 */
export async function startUpstashBridge(
  redisPort: number,
  token = 'test-upstash-token',
): Promise<UpstashBridge> {
  const commands: string[][] = [];
  const sockets = new Set<Socket>();
  let fault: BridgeFault | null = null;
  let slowMs = 2_000;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { error: String(error) }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req);
    if (fault === 'lost-answer') {
      // The answer is lost on the way back: the command ran, the connection drops.
      const drop = () => void res.socket?.destroy();
      return answer(req, body, { writeHead: drop, end: drop } as unknown as ServerResponse);
    }
    return answer(req, body, res);
  }

  async function answer(req: IncomingMessage, body: string, res: ServerResponse) {
    if (fault === 'hang') return;
    if (fault === 'slow') await new Promise((resolve) => setTimeout(resolve, slowMs));
    if (fault === 'http-500') return send(res, 500, { error: 'internal error' });
    if (fault === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"result": "ab');
      return;
    }
    if (fault === 'wrong-shape') return send(res, 200, { result: { unexpected: [1, 2, 3] } });
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'Unauthorized' });
    // Test-only: the commands received so far, for a test in another process (workerd) to wait on.
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://bridge').pathname === '/__commands')
      return send(res, 200, { result: commands });
    if (req.method !== 'POST') return send(res, 405, { error: 'method not allowed' });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return send(res, 400, { error: 'ERR failed to parse command' });
    }
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    const path = new URL(req.url ?? '/', 'http://bridge').pathname.replace(/\/+$/, '');
    if (path === '' || path === '/') {
      if (!isCommand(parsed)) return send(res, 400, { error: 'ERR a command is a JSON array of strings' });
      const command = parsed.map(String);
      commands.push(command);
      const [reply] = await sendCommands(redisPort, [command]);
      const answer = toAnswer(reply ?? null, base64);
      return send(res, 'error' in answer ? 400 : 200, answer);
    }
    if (path === '/pipeline' || path === '/multi-exec') {
      if (!Array.isArray(parsed) || !parsed.every(isCommand)) {
        return send(res, 400, { error: 'ERR a pipeline is a JSON array of commands' });
      }
      const batch = parsed.map((command) => command.map(String));
      commands.push(...batch);
      if (path === '/pipeline') {
        const replies = await sendCommands(redisPort, batch);
        return send(
          res,
          200,
          replies.map((reply) => toAnswer(reply, base64)),
        );
      }
      const replies = await sendCommands(redisPort, [['MULTI'], ...batch, ['EXEC']]);
      const exec = replies.at(-1);
      if (!Array.isArray(exec)) return send(res, 400, toAnswer(exec ?? null, base64));
      return send(
        res,
        200,
        exec.map((reply) => toAnswer(reply, base64)),
      );
    }
    return send(res, 404, { error: 'ERR unknown endpoint' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    commands,
    fault: (mode, delayMs) => {
      fault = mode;
      slowMs = delayMs ?? 2_000;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Upstash accepts numbers as command arguments (the client sends `EX 86400` as a number). */
function isCommand(value: unknown): value is Array<string | number> {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((part) => typeof part === 'string' || typeof part === 'number')
  );
}

/** One reply as Upstash answers it. */
function toAnswer(reply: RespValue, base64: boolean): { result: unknown } | { error: string } {
  if (reply instanceof RespError) return { error: reply.message };
  return { result: encode(reply, base64) };
}

function encode(value: RespValue, base64: boolean): unknown {
  if (typeof value === 'string') return base64 ? Buffer.from(value, 'utf8').toString('base64') : value;
  if (Array.isArray(value)) return value.map((item) => encode(item, base64));
  if (value instanceof RespError) return value.message;
  return value;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      data += chunk;
    });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
