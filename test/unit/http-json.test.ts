import { describe, expect, it } from 'vitest';
import { fetchJsonWithin, HttpJsonError } from '../../lib/upstream/http-json';
import { fetchPriceJson } from '../../lib/upstream/price-http';
import { PriceSourceError } from '../../lib/upstream/price-source';

/** Awaits a failure and returns it as a PriceSourceError. */
async function failureOf(promise: Promise<unknown>): Promise<PriceSourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PriceSourceError);
  return error as PriceSourceError;
}

describe('fetchPriceJson', () => {
  it('returns the parsed body of a 200 answer and asks for JSON', async () => {
    let accept: string | null = null;
    const answer = await fetchPriceJson(
      async (_url, init) => {
        accept = new Headers(init?.headers).get('accept');
        return Response.json({ ok: 1 });
      },
      'http://price.test/x',
      500,
    );
    expect(answer).toEqual({ body: { ok: 1 }, cachedS: 0 });
    expect(accept).toBe('application/json');
  });

  it.each([
    ['170', 170],
    ['180', 180],
    ['not a number', 0],
    ['-5', 0],
  ])('says how long a cache held the answer (Age %s), so its quote can be dated', async (age, cachedS) => {
    const answer = await fetchPriceJson(
      async () => Response.json({ ok: 1 }, { headers: { age } }),
      'http://price.test/x',
      500,
    );
    expect(answer).toEqual({ body: { ok: 1 }, cachedS });
  });

  it('refuses an answer a cache held over 3 minutes: its quote is not read live', async () => {
    const failure = await failureOf(
      fetchPriceJson(
        async () => Response.json({ ok: 1 }, { headers: { age: '181' } }),
        'http://price.test/x',
        500,
      ),
    );
    expect(failure).toMatchObject({ kind: 'error', reason: 'answer held by a cache for 181 s' });
  });

  it('reports a timeout when the upstream never answers, even if fetch ignores the abort signal', async () => {
    const failure = await failureOf(
      fetchPriceJson(() => new Promise<Response>(() => {}), 'http://price.test/x', 60),
    );
    expect(failure.kind).toBe('timeout');
  });

  it('reports a timeout when the body never finishes', async () => {
    const hangingBody = new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"a":')) });
    const failure = await failureOf(
      fetchPriceJson(async () => new Response(hangingBody, { status: 200 }), 'http://price.test/x', 60),
    );
    expect(failure.kind).toBe('timeout');
  });

  it.each([
    [
      'a refused connection',
      () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })),
      /ECONNREFUSED/,
    ],
    ['HTTP 500', async () => new Response('{"error":"x"}', { status: 500 }), /HTTP 500/],
    ['HTTP 429', async () => new Response('{"status":{"error_code":429}}', { status: 429 }), /HTTP 429/],
    ['a body that is not JSON', async () => new Response('{"data": {"amou', { status: 200 }), /malformed/],
  ])('reports an error for %s', async (_, fetchFn, reason) => {
    const failure = await failureOf(fetchPriceJson(fetchFn as typeof fetch, 'http://price.test/x', 500));
    expect(failure.kind).toBe('error');
    expect(failure.reason).toMatch(reason);
  });

  it('never puts the URL in the failure reason', async () => {
    const failure = await failureOf(
      fetchPriceJson(
        () => Promise.reject(new TypeError('fetch failed for https://key-abc123@price.test/x')),
        'https://key-abc123@price.test/x',
        500,
      ),
    );
    expect(failure.reason).not.toContain('key-abc123');
  });
});

describe('fetchJsonWithin', () => {
  /** A body that streams 64 KiB chunks for ever, counting how many were pulled. */
  function endlessBody() {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const pulled = { count: 0, cancelled: false };
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => {
        pulled.count++;
        c.enqueue(chunk);
      },
      cancel: () => {
        pulled.cancelled = true;
      },
    });
    return { body, pulled };
  }

  async function kindOf(promise: Promise<unknown>): Promise<string> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpJsonError);
    return (error as HttpJsonError).kind;
  }

  it('stops reading an endless body once it passes the cap, and cancels the stream', async () => {
    const { body, pulled } = endlessBody();
    const kind = await kindOf(
      fetchJsonWithin(async () => new Response(body), 'http://x.test/', 5_000, { maxBytes: 1_000_000 }),
    );
    expect(kind).toBe('too-large');
    expect(pulled.cancelled).toBe(true);
    // 1,000,000 bytes is 15.3 chunks of 64 KiB: the reader gave up right after the 16th.
    expect(pulled.count).toBeLessThanOrEqual(18);
  });

  it('refuses a body whose Content-Length is over the cap without reading it', async () => {
    const { body, pulled } = endlessBody();
    const res = new Response(body, { headers: { 'content-length': '5000000' } });
    expect(
      await kindOf(fetchJsonWithin(async () => res, 'http://x.test/', 5_000, { maxBytes: 1_000_000 })),
    ).toBe('too-large');
    expect(pulled.cancelled).toBe(true);
  });

  it('reads a body at the cap, split over chunks, and decodes UTF-8 across chunk borders', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ name: 'Ξther', pad: 'x'.repeat(980) }));
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
        c.close();
      },
    });
    const parsed = await fetchJsonWithin(async () => new Response(body), 'http://x.test/', 5_000, {
      maxBytes: bytes.length,
    });
    expect(parsed).toMatchObject({ name: 'Ξther' });
  });

  it('tells the price chain an oversized body is an error, not a timeout', async () => {
    const { body } = endlessBody();
    const failure = await failureOf(
      fetchPriceJson(async () => new Response(body), 'http://price.test/x', 5_000),
    );
    expect(failure.kind).toBe('error');
    expect(failure.reason).toMatch(/body over 2000000 bytes/);
  });
});
