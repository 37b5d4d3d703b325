import { describe, expect, it } from 'vitest';
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
    const body = await fetchPriceJson(
      async (_url, init) => {
        accept = new Headers(init?.headers).get('accept');
        return Response.json({ ok: 1 });
      },
      'http://price.test/x',
      500,
    );
    expect(body).toEqual({ ok: 1 });
    expect(accept).toBe('application/json');
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
