import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { findFreePort } from '../../helpers/free-port';

/** A reply of the Redis protocol (RESP2) as JavaScript values; errors come back as RespError. */
export type RespValue = string | number | null | RespError | RespValue[];

/** An error reply (`-ERR ...`) from Redis. */
export class RespError {
  constructor(readonly message: string) {}
}

/** A real redis-server started for a test run. */
export interface RedisServer {
  port: number;
  /** Sends one command on a short-lived connection and returns the reply. */
  command(...args: string[]): Promise<RespValue>;
  /** Freezes the process (SIGSTOP): connections open but nothing answers, like a hung Redis. */
  pause(): void;
  /** Thaws a paused process. */
  resume(): void;
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on a free port (or `options.port`) with persistence off. Fails with a clear message when the binary is
 * missing, since the tests must run against a real Redis (CI installs the `redis-server` package).
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'redis-server is not installed: these tests need a real Redis. Install it with ' +
        '`apt-get install -y redis-server` (the CI script does).',
    );
  }
  // A given port brings a stopped server back where its clients (the bridge) expect it.
  const port = options.port ?? (await findFreePort());
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  await waitForPing(port, child, () => stderr);
  return {
    port,
    command: (...args) => sendCommand(port, args),
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: () => stopProcess(child),
  };
}

async function waitForPing(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`redis-server exited at start: ${stderr().trim()}`);
    const reply = await sendCommand(port, ['PING']).catch(() => undefined);
    if (reply === 'PONG') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer PING on port ${port}`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  });
}

/** Encodes a command as a RESP array of bulk strings. */
export function encodeCommand(args: readonly string[]): Buffer {
  const parts = [`*${args.length}\r\n`];
  for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
  return Buffer.from(parts.join(''));
}

/**
 * Parses one RESP reply at `offset`; returns the value and the offset after it, or undefined when the
 * buffer does not yet hold a whole reply.
 */
export function parseReply(buf: Buffer, offset = 0): { value: RespValue; next: number } | undefined {
  const lineEnd = buf.indexOf('\r\n', offset);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buf[offset] ?? 0);
  const line = buf.toString('utf8', offset + 1, lineEnd);
  const after = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, next: after };
    case '-':
      return { value: new RespError(line), next: after };
    case ':':
      return { value: Number(line), next: after };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, next: after };
      if (buf.length < after + length + 2) return undefined;
      return { value: buf.toString('utf8', after, after + length), next: after + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, next: after };
      const items: RespValue[] = [];
      let next = after;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, next);
        if (!item) return undefined;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new Error(`unexpected RESP type ${JSON.stringify(type)}`);
  }
}

/**
 * Sends commands on one connection and returns their replies in order (a MULTI ... EXEC block must share
 * one connection). Rejects when Redis cannot be reached or closes early.
 */
export function sendCommands(port: number, commands: readonly string[][]): Promise<RespValue[]> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    const replies: RespValue[] = [];
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('redis closed the connection')));
    socket.on('connect', () => socket.write(Buffer.concat(commands.map(encodeCommand))));
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      try {
        let parsed = parseReply(buffer);
        while (parsed) {
          replies.push(parsed.value);
          buffer = buffer.subarray(parsed.next);
          parsed = replies.length < commands.length ? parseReply(buffer) : undefined;
        }
      } catch (error) {
        // Not Redis on that port (another server took it): a failure of this call, not of the process.
        socket.destroy();
        reject(error);
        return;
      }
      if (replies.length === commands.length) {
        socket.end();
        socket.removeAllListeners('close');
        resolve(replies);
      }
    });
  });
}

async function sendCommand(port: number, args: string[]): Promise<RespValue> {
  const [reply] = await sendCommands(port, [args]);
  return reply ?? null;
}
