import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';

describe('Node host over HTTP', () => {
  let host: NodeHost;
  let base: string;
  let dataDir: string;
  const lines: string[] = [];

  beforeAll(async () => {
    // A fresh data directory: never the `.data` that `npm start` uses in the working tree.
    dataDir = mkdtempSync(join(tmpdir(), 'gas-node-host-'));
    host = await startNodeHost(
      { PORT: '0', DATA_DIR: dataDir },
      { log: createLogger((line) => lines.push(line)), scheduler: false },
    );
    base = `http://127.0.0.1:${host.port}`;
  });
  afterAll(async () => {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves a valid OpenAPI 3.0 document with version, licence and servers', async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300, s-maxage=300');
    const doc = (await res.json()) as {
      openapi: string;
      info: { version: string; license: { name: string } };
      servers: unknown;
      paths: unknown;
    };
    expect(doc.openapi).toMatch(/^3\.0\.\d$/);
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info.license.name).toBe('CC BY 4.0');
    expect(doc.servers).toEqual([{ url: `http://localhost:${host.port}` }]);
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    for (const path of [
      '/api/dashboard',
      '/api/gas-predictions',
      '/api/gas-history',
      '/api/eth-price',
      '/api/l2-gas',
      '/api/l2-gas-history',
      '/api/forecast-accuracy',
      '/openapi.json',
    ]) {
      expect(paths[path]?.get, path).toBeDefined();
    }
  });

  it('answers GET /nope with a 404 problem carrying CORS and the informational headers', async () => {
    const res = await fetch(`${base}/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('x-ratelimit-window')).toBe('1h');
    expect(await res.json()).toMatchObject({ status: 404, title: 'Not found', instance: '/nope' });
  });

  /** Sends `request` as it is and reads the answer to the end: a problem with the app's headers. */
  async function rawProblem(request: string | Buffer, status: number) {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(host.port, '127.0.0.1', () => socket.write(request));
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toContain('Content-Type: application/problem+json');
    expect(head).toContain('Access-Control-Allow-Origin: *');
    expect(head).toContain('X-API-Tier: free');
    return { head, body };
  }

  it.each([
    [
      'a request line and headers over 16 KiB',
      `GET /api/gas?pad=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`,
      431,
    ],
    ['a malformed request line', 'GET /api/gas HTTP/1.1 extra\r\nHost: a\r\n\r\n', 400],
  ])(
    'answers %s, which Node refuses before the app, with a problem carrying CORS and the informational headers',
    async (_, request, status) => {
      const { body } = await rawProblem(request, status);
      expect(JSON.parse(body)).toMatchObject({
        status,
        title: expect.any(String),
        detail: expect.any(String),
      });
    },
  );

  it.each([
    ['an unknown method', 'FOO /api/gas HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['an unknown method on /', 'FOO / HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['a method in lower case', 'get /api/gas HTTP/1.1\r\nHost: a\r\n\r\n'],
  ])(
    'answers %s, which Node refuses before the app, with a 501 naming the methods it implements',
    async (_, request) => {
      // RFC 9110 15.6.2: an unrecognised method is a 501, not a 400 (it was a 400 'could not be read').
      const { head, body } = await rawProblem(request, 501);
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 501 Not Implemented');
      expect(JSON.parse(body)).toMatchObject({
        status: 501,
        title: 'Method not implemented',
        detail: expect.stringContaining('It implements GET, HEAD, POST, OPTIONS.'),
      });
    },
  );

  it.each([
    // A ClientHello's first bytes: handshake record (0x16), TLS 1.0 record version, length, type 1 (ClientHello), TLS 1.2.
    [
      'a TLS ClientHello (https:// sent to the plain-HTTP port)',
      Buffer.concat([Buffer.from('1603010200010001fc0303', 'hex'), Buffer.alloc(32, 0xab)]),
    ],
    ['binary noise', Buffer.from('8f00d2417e20ff0d0a0d0a', 'hex')],
    ['a method name broken by a control byte', Buffer.from('PO\x01ST / HTTP/1.1\r\nHost: a\r\n\r\n')],
  ])(
    'answers %s, with no method token where the method goes, with a 400, not the 501 of an unknown method',
    async (_, request) => {
      const { head, body } = await rawProblem(request, 400);
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(JSON.parse(body)).toMatchObject({
        status: 400,
        title: 'Bad request',
        detail: expect.stringContaining('it does not begin with a method name'),
      });
    },
  );

  it.each(['PROPFIND', 'QUERY', 'SEARCH'])(
    "answers %s, a method Node knows and no path answers, with the app's 405 and Allow",
    async (method) => {
      const res = await fetch(`${base}/api/gas`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      await res.arrayBuffer();
    },
  );

  it('answers OPTIONS * (the server as a whole) with 204, Allow and the usual headers, keeping the connection', async () => {
    const before = lines.length;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(host.port, '127.0.0.1', () =>
        socket.write(
          'OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\nGET /nope HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
        ),
      );
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const [head = '', next = ''] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
    expect(head).toContain('Allow: GET, HEAD, POST, OPTIONS');
    expect(head).toContain('Access-Control-Allow-Methods: GET, HEAD, POST, OPTIONS');
    expect(head).toContain('Access-Control-Allow-Origin: *');
    expect(head).toContain('X-API-Tier: free');
    expect(head).toContain('X-RateLimit-Window: 1h');
    expect(head).not.toMatch(/^Content-Length:/im);
    // The connection stays open: the request behind it is answered too.
    expect(next).toMatch(/^HTTP\/1.1 404 /);
    expect(lines.slice(before).join('\n')).toContain('OPTIONS * 204');
  });

  it.each([
    ['CONNECT /api/gas HTTP/1.1\r\nHost: a\r\n\r\n', 405, 'GET, HEAD, OPTIONS', 'CONNECT /api/gas 405'],
    ['CONNECT /nope HTTP/1.1\r\nHost: a\r\n\r\n', 404, null, 'CONNECT /nope 404'],
    ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 404, null, 'CONNECT - 404'],
  ])(
    'answers %j (Node hands CONNECT apart; it used to drop it unanswered) with a problem',
    async (request, status, allow, logLine) => {
      const before = lines.length;
      const { head, body } = await rawProblem(request, status);
      if (allow) expect(head).toContain(`Allow: ${allow}`);
      else expect(head).not.toMatch(/^Allow:/m);
      expect(JSON.parse(body)).toMatchObject({ status, detail: expect.any(String) });
      expect(body).not.toContain('example.com');
      expect(lines.slice(before).join('\n')).toContain(logLine);
    },
  );

  it('survives a client that resets its connection after a CONNECT', async () => {
    // Node hands a CONNECT's socket over without its error listener: a reset used to crash the host.
    await new Promise<void>((resolve) => {
      const socket = connect(host.port, '127.0.0.1', () =>
        socket.write('CONNECT /api/gas HTTP/1.1\r\nHost: a\r\n\r\n'),
      );
      socket.once('data', () => {
        socket.resetAndDestroy();
        resolve();
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it('closes a CONNECT pipelined behind a request still being answered without answering in its place', async () => {
    const received = await new Promise<string>((resolve) => {
      const socket = connect(host.port, '127.0.0.1', () =>
        socket.write('GET /nope HTTP/1.1\r\nHost: a\r\n\r\nCONNECT /api/gas HTTP/1.1\r\nHost: a\r\n\r\n'),
      );
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk.toString();
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(data));
    });
    // The 405 went out in the 404's place, on the GET's connection.
    expect(received).not.toContain('405 Method Not Allowed');
  });

  it('closes a CONNECT connection whole after answering, though the client keeps its side open', async () => {
    // A half-open client used to hold the server's close, and a shutdown, open.
    await new Promise<void>((resolve) => {
      const socket = connect({ port: host.port, host: '127.0.0.1', allowHalfOpen: true }, () =>
        socket.write('CONNECT /api/gas HTTP/1.1\r\nHost: a\r\n\r\n'),
      );
      socket.resume();
      // Once the server is gone for good, a write meets a reset and the socket closes.
      socket.on('end', () => {
        const poke = () => socket.writable && socket.write('x', () => setTimeout(poke, 20));
        poke();
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });
  });

  it('logs one line per request', async () => {
    const before = lines.length;
    await fetch(`${base}/nope?x=1`);
    const added = lines.slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/GET \/nope 404 \d+ms/);
  });
});

describe('Node host lifecycle', () => {
  const start = (dataDir: string, port = '0') =>
    startNodeHost({ PORT: port, DATA_DIR: dataDir }, { log: createLogger(() => {}), scheduler: false });

  it('closes while a client holds a connection open without a whole request, and releases the store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gas-node-close-'));
    try {
      const host = await start(dataDir);
      // A load balancer's TCP check or a browser's preconnect: connected, a partial request, no end.
      const socket = connect(host.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write('GET /api/gas HTTP/1.1\r\nHost: localhost\r\n');
      socket.on('error', () => {});
      const closed = await Promise.race([
        host.close().then(() => 'closed'),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 15_000)),
      ]);
      socket.destroy();
      expect(closed).toBe('closed');
      // The lock is released: the same data directory opens again at once.
      const again = await start(dataDir);
      await again.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);

  it('names PORT when the port is taken, and releases the store it opened', async () => {
    const first = mkdtempSync(join(tmpdir(), 'gas-node-port-'));
    const second = mkdtempSync(join(tmpdir(), 'gas-node-port-'));
    const host = await start(first);
    try {
      await expect(start(second, String(host.port))).rejects.toThrow(
        `PORT ${host.port} is already in use; set PORT to a free port`,
      );
      // Nothing holds the second store: it opens at once.
      const other = await start(second);
      await other.close();
    } finally {
      await host.close();
      rmSync(first, { recursive: true, force: true });
      rmSync(second, { recursive: true, force: true });
    }
    // Three stores opened and migrated: a CI run took 35 s on a loaded machine.
  }, 90_000);
});
