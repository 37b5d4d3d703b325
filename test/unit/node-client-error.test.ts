import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answerClientError, answerConnect } from '../../lib/node/client-error';

/** A socket stand-in that keeps what is written to it and whether it was destroyed. */
function socket(underway = false) {
  const written: string[] = [];
  const s = new Duplex({
    read() {},
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  if (underway) Object.assign(s, { _httpMessage: { headersSent: true } });
  return { s, written };
}

const refusal = (code: string) => Object.assign(new Error(code), { code });

describe("answerClientError (requests Node's parser refuses)", () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'Request Header Fields Too Large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'Request Timeout'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'Content Too Large'],
    ['HPE_INVALID_METHOD', 501, 'Not Implemented'],
    ['HPE_INVALID_VERSION', 400, 'Bad Request'],
  ])('answers %s with %i as a problem with CORS and the informational headers', (code, status, reason) => {
    const { s, written } = socket();
    answerClientError(refusal(code), s);
    const [head = '', body = ''] = written.join('').split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${reason}`);
    expect(head).toContain('Access-Control-Allow-Origin: *');
    expect(head).toContain('Connection: close');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toMatchObject({ status, type: `https://httpstatuses.io/${status}` });
  });

  it('names the methods the server implements in the 501 for a method it does not know', () => {
    const { s, written } = socket();
    answerClientError(refusal('HPE_INVALID_METHOD'), s, ['GET', 'HEAD', 'POST', 'OPTIONS']);
    const body = JSON.parse(written.join('').split('\r\n\r\n')[1] ?? '') as { title: string; detail: string };
    expect(body.title).toBe('Method not implemented');
    expect(body.detail).toContain('method names are case-sensitive');
    expect(body.detail).toContain('It implements GET, HEAD, POST, OPTIONS.');
  });

  it.each([
    // Offsets as Node reports them: where its parser stopped, inside the method.
    ['FOO / HTTP/1.1\r\n\r\n', 1, 501],
    ['GE / HTTP/1.1\r\n\r\n', 2, 501],
    ['GET / HTTP/1.1\r\nHost: a\r\n\r\nFOO / HTTP/1.1\r\n\r\n', 28, 501],
    ['\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03', 0, 400],
    [' / HTTP/1.1\r\n\r\n', 0, 400],
    ['\r\nPOS\x01T / HTTP/1.1\r\n\r\n', 5, 400],
    ['GET / HTTP/1.1\r\nHost: a\r\n\r\nG{T / HTTP/1.1\r\n\r\n', 28, 400],
  ])('answers HPE_INVALID_METHOD on %j with %i: 501 only for a method token', (raw, bytesParsed, status) => {
    const { s, written } = socket();
    const rawPacket = Buffer.from(raw, 'latin1');
    answerClientError(Object.assign(refusal('HPE_INVALID_METHOD'), { rawPacket, bytesParsed }), s);
    expect(written.join('').split('\r\n')[0]).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
  });

  it('reads only the bytes around the offset, not the requests pipelined before it (each up to 16 KiB)', () => {
    // Two requests with 16 KB URLs, then a ClientHello: Node's packet holds all three. A search back
    // over the earlier requests' bytes took time quadratic in a URL's length (a second per 16 KB).
    const earlier = `GET /api/gas?${'a'.repeat(16_000)} HTTP/1.1\r\nHost: a\r\n\r\n`.repeat(2);
    const hello = Buffer.from('1603010200010001fc0303', 'hex');
    const packet = Buffer.concat([Buffer.from(earlier, 'latin1'), hello]);
    const read = new Set<number>();
    const called: string[] = [];
    // The packet as Node hands it over, noting each byte read and each method called on it whole.
    const rawPacket = new Proxy(packet, {
      get(target, key) {
        if (typeof key === 'string' && /^\d+$/.test(key)) read.add(Number(key));
        const value = Reflect.get(target, key);
        if (typeof value !== 'function') return value;
        called.push(String(key));
        return value.bind(target);
      },
    });
    const { s, written } = socket();
    answerClientError(
      Object.assign(refusal('HPE_INVALID_METHOD'), { rawPacket, bytesParsed: earlier.length }),
      s,
    );
    expect(written.join('').split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(called).toEqual([]);
    expect(Math.min(...read)).toBeGreaterThanOrEqual(earlier.length - 32);
    expect(Math.max(...read)).toBeLessThanOrEqual(earlier.length + 1);
  });

  it.each([
    [`GET /?${'a'.repeat(16_000)} HTTP/1.1\r\nHost: a\r\n\r\n`, 'FOO / HTTP/1.1\r\n\r\n', 1, 501],
    [`GET /?${'a'.repeat(16_000)} HTTP/1.1\r\nHost: a\r\n\r\n`, 'MKFOO / HTTP/1.1\r\n\r\n', 2, 501],
    [`POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc`, 'FOO / HTTP/1.1\r\n\r\n', 1, 501],
    [`GET /?${'a'.repeat(16_000)} HTTP/1.1\r\nHost: a\r\n\r\n`, '\x16\x03\x01\x02\x00', 0, 400],
  ])(
    'answers HPE_INVALID_METHOD after a long pipelined request as after none (%#)',
    (earlier, next, into, status) => {
      const { s, written } = socket();
      const rawPacket = Buffer.from(earlier + next, 'latin1');
      const bytesParsed = earlier.length + into;
      answerClientError(Object.assign(refusal('HPE_INVALID_METHOD'), { rawPacket, bytesParsed }), s);
      expect(written.join('').split('\r\n')[0]).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    },
  );

  it('closes without a word a connection whose earlier response is under way (an answer would land inside it)', () => {
    const { s, written } = socket(true);
    answerClientError(refusal('HPE_INVALID_METHOD'), s);
    expect(written).toEqual([]);
    expect(s.destroyed).toBe(true);
  });

  it('closes a reset connection without writing', () => {
    const { s, written } = socket();
    answerClientError(refusal('ECONNRESET'), s);
    expect(written).toEqual([]);
    expect(s.destroyed).toBe(true);
  });
});

describe('answerConnect (CONNECT, which Node hands over apart from other requests)', () => {
  const methodsOf = (path: string) => (path === '/api/gas' ? ['GET', 'HEAD'] : []);

  it('survives an error on the handed-over socket, which arrives without a listener', () => {
    const { s } = socket();
    expect(answerConnect('/api/gas', s, methodsOf)).toBe(405);
    // Without a listener an 'error' event throws, and in the host it would end the process.
    expect(() =>
      s.emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })),
    ).not.toThrow();
    expect(s.destroyed).toBe(true);
  });

  it('closes the socket whole once its answer is written', async () => {
    const { s, written } = socket();
    expect(answerConnect('/nope', s, methodsOf)).toBe(404);
    await new Promise((resolve) => s.once('close', resolve));
    expect(written.join('')).toMatch(/^HTTP\/1.1 404 Not Found\r\n/);
  });

  it('answers nothing on a connection whose earlier response is still to come, and closes it', () => {
    const { s, written } = socket(true);
    expect(answerConnect('/api/gas', s, methodsOf)).toBeUndefined();
    expect(written).toEqual([]);
    expect(s.destroyed).toBe(true);
  });
});
