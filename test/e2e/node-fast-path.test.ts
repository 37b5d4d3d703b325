// The Node host's fast path (lib/http/cached-answer.ts): a GET of a URL the app already answered from
// its rendered cache is answered again without Hono. Every answer it gives must be, byte for byte on the
// wire, the one the app gives for the same request at the same moment; it must never answer a bad query,
// a failed read or a refresh with anything else; and every request still gets its log line.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoalescingCache } from '../../lib/http/cache';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import type { WithDb } from '../../lib/store/database';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { CACHEABLE_REQUESTS } from '../helpers/cacheable-endpoints';
import { startUpstreams, type Upstreams } from '../upstreams';

let clock = Date.now();
let up: Upstreams;
let engine: DatabaseEngine;
let host: NodeHost;
let dataDir: string;
const lines: string[] = [];
let dbCalls = 0;
let dbDown = false;
let sent = 0;

beforeAll(async () => {
  up = await startUpstreams({ now: () => clock });
  engine = await openDatabase({ kind: 'pglite' });
  await engine.migrate();
  const withDb: WithDb = (work) => {
    dbCalls += 1;
    return dbDown ? Promise.reject(new Error('connect ECONNREFUSED')) : engine.withDb(work);
  };
  dataDir = mkdtempSync(join(tmpdir(), 'gas-fast-path-'));
  const now = () => clock;
  host = await startNodeHost(
    { ...up.env, PORT: '0', DATA_DIR: dataDir },
    {
      log: createLogger((line) => lines.push(line)),
      scheduler: false,
      deps: { now, withDb, cache: createCoalescingCache({ now }), lastGood: createMemoryLastGoodStore(now) },
    },
  );
}, 60_000);
afterAll(async () => {
  await host?.close();
  await engine?.close();
  await up?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One request over a raw socket, as sent on the wire; the answer's bytes exactly as received. */
function rawGet(path: string, hostName: string, headers: Record<string, string> = {}): Promise<Buffer> {
  sent += 1;
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(host.port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostName}\r\n${extra}Connection: close\r\n\r\n`);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
}

/** The answer with its Date header's value masked: the only part that may differ from one second to the next. */
const wire = (answer: Buffer) => answer.toString('latin1').replace(/\r\nDate: [^\r]+\r\n/, '\r\nDate: *\r\n');
const statusOf = (answer: Buffer) => Number(answer.toString('latin1').slice(9, 12));
const headerOf = (answer: Buffer, name: string) =>
  answer.toString('latin1').match(new RegExp(`\\r\\n${name}: ([^\\r]+)\\r\\n`, 'i'))?.[1];
const bodyOf = (answer: Buffer) => answer.subarray(answer.indexOf('\r\n\r\n') + 4);

/** Asks the fast path (a URL already answered) and the app (the same request under a host name not seen yet). */
let fresh = 0;
async function bothWays(path: string, headers: Record<string, string> = {}) {
  const before = host.fastAnswers();
  const fast = await rawGet(path, 'fast.test', headers);
  expect(host.fastAnswers(), `${path} answered by the fast path`).toBe(before + 1);
  const app = await rawGet(path, `app-${++fresh}.test`, headers);
  expect(host.fastAnswers(), `${path} answered by the app`).toBe(before + 1);
  return { fast, app };
}

describe('Node host fast path', () => {
  it.each(CACHEABLE_REQUESTS)('%s: a hit is byte-identical to the app, 200 and 304', async (path) => {
    await rawGet(path, 'fast.test'); // through the app: the URL is remembered (and a live source label consumed)
    const immediate = host.immediateAnswers();
    const { fast, app } = await bothWays(path); // the fast path reads, and keeps its answer for the next two

    expect(statusOf(fast)).toBe(200);
    expect(wire(fast)).toBe(wire(app));
    expect(headerOf(fast, 'Content-Type')).toBe('application/json');
    expect(headerOf(fast, 'Access-Control-Allow-Origin')).toBe('*');
    expect(headerOf(fast, 'X-RateLimit-Window')).toBe('1h');

    const etag = headerOf(fast, 'ETag') ?? '';
    const notModified = await bothWays(path, { 'If-None-Match': etag });
    expect(statusOf(notModified.fast)).toBe(304);
    expect(wire(notModified.fast)).toBe(wire(notModified.app));
    const stale = await bothWays(path, { 'If-None-Match': '"not-the-current-tag"' });
    expect(statusOf(stale.fast)).toBe(200);
    expect(wire(stale.fast)).toBe(wire(stale.app));
    expect(host.immediateAnswers(), 'the 304 and the stale tag answered at once').toBe(immediate + 2);
  });

  it('answers other spellings of a remembered URL through the adapter, and refuses unreadable ones', async () => {
    const path = '/api/gas-history?range=1d';
    await rawGet(path, 'fast.test');
    const plain = await rawGet(path, 'fast.test');
    const before = host.fastAnswers();
    const immediate = host.immediateAnswers();
    // The adapter gives both in their normal form (http://fast.test/...): the remembered URL.
    const capitals = await rawGet(path, 'FAST.test');
    const dotted = await rawGet('/api/./gas-history?range=1d', 'fast.test');
    expect(host.fastAnswers()).toBe(before + 2);
    expect(host.immediateAnswers()).toBe(immediate);
    // A host that carries a path spells the remembered URL when glued to the target; the adapter
    // refuses it, and so it is refused, with a problem+json and a log line like any other request.
    const logged = lines.length;
    const pathInHost = await rawGet('/gas-history?range=1d', 'fast.test/api');
    const backslash = await rawGet('/api\\gas-history?range=1d', 'fast.test');
    for (const answer of [pathInHost, backslash]) {
      expect(statusOf(answer)).toBe(400);
      expect(headerOf(answer, 'Content-Type')).toBe('application/problem+json');
      expect(headerOf(answer, 'Access-Control-Allow-Origin')).toBe('*');
      expect(JSON.parse(bodyOf(answer).toString('utf8'))).toMatchObject({
        status: 400,
        title: 'Bad request',
      });
    }
    expect(lines.slice(logged).filter((l) => / info GET \/\S* 400 0ms$/.test(l))).toHaveLength(2);
    expect(host.immediateAnswers()).toBe(immediate);
    expect(statusOf(plain)).toBe(200);
    expect(wire(capitals)).toBe(wire(plain));
    expect(wire(dotted)).toBe(wire(plain));
  });

  it('serves the refreshed answer once the data changes, never the one it answered before', async () => {
    const before = new Map<string, Buffer>();
    for (const path of CACHEABLE_REQUESTS) before.set(path, await rawGet(path, 'fast.test'));
    clock += 2 * 3_600_000; // past every refresh and into a new hour
    for (const path of CACHEABLE_REQUESTS) {
      const old = before.get(path) as Buffer;
      const refreshed = await rawGet(path, 'fast.test', { 'If-None-Match': headerOf(old, 'ETag') ?? '' });
      if (path === '/openapi.json') {
        expect(statusOf(refreshed), path).toBe(304); // one document per process
        continue;
      }
      expect(statusOf(refreshed), path).toBe(200);
      expect(bodyOf(refreshed).equals(bodyOf(old)), path).toBe(false);
      expect(headerOf(refreshed, 'ETag'), path).not.toBe(headerOf(old, 'ETag'));
      const { fast, app } = await bothWays(path);
      expect(wire(fast), path).toBe(wire(app));
    }
  });

  it('never answers a bad query: each one reaches validation and gets its problem', async () => {
    await rawGet('/api/gas-history?range=1d', 'fast.test');
    const before = host.fastAnswers();
    for (const path of [
      '/api/gas-history?range=bad',
      '/api/gas-history?range=bad',
      '/api/gas-history?range=1d&range=7d',
      '/api/gas-history?range=',
      '/api/l2-gas-history?network=base',
      '/api/gas-predictions?timeframe=24H',
    ]) {
      const answer = await rawGet(path, 'fast.test');
      expect(statusOf(answer), path).toBe(400);
      expect(headerOf(answer, 'Content-Type'), path).toBe('application/problem+json');
      const problem = JSON.parse(bodyOf(answer).toString('utf8')) as { invalidParams: { name: string }[] };
      expect(problem.invalidParams.length, path).toBeGreaterThan(0);
    }
    expect(host.fastAnswers()).toBe(before);
  });

  it('hands a failed read to the app: the problem it gives, with the store asked once', async () => {
    const path = '/api/gas-history?range=7d';
    await rawGet(path, 'fast.test');
    await rawGet(path, 'fast.test');
    dbDown = true;
    try {
      clock += 10_000; // past the history's 5-second cache
      const calls = dbCalls;
      const logged = lines.length;
      const before = host.fastAnswers();
      const answer = await rawGet(path, 'fast.test');
      expect(statusOf(answer)).toBe(503);
      expect(headerOf(answer, 'Content-Type')).toBe('application/problem+json');
      expect(headerOf(answer, 'Retry-After')).toBe('30');
      expect(dbCalls - calls).toBe(1);
      expect(host.fastAnswers()).toBe(before);
      const added = lines.slice(logged);
      expect(added.filter((l) => l.includes('history store unavailable'))).toHaveLength(1);
      expect(added.filter((l) => / GET \/api\/gas-history 503 \d+ms$/.test(l))).toHaveLength(1);
    } finally {
      dbDown = false;
    }
    clock += 10_000;
    expect(statusOf(await rawGet(path, 'fast.test'))).toBe(200);
  });

  it('writes one log line per request, fast or not, a concurrent burst included', async () => {
    const immediate = host.immediateAnswers();
    const burst = await Promise.all(Array.from({ length: 200 }, () => rawGet('/api/gas', 'fast.test')));
    expect(burst.every((answer) => statusOf(answer) === 200)).toBe(true);
    expect(host.immediateAnswers() - immediate).toBeGreaterThan(100); // lines written without the adapter too
    const requestLines = lines.filter((l) => / info GET \/\S* \d{3} \d+ms$/.test(l));
    expect(requestLines).toHaveLength(sent);
    expect(requestLines.filter((l) => l.includes(' GET /api/gas 200 ')).length).toBeGreaterThanOrEqual(200);
  });
});
