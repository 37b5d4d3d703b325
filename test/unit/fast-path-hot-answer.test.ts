// The Node host's immediate answer (AnswerRoutes.answerNow in lib/http/cached-answer.ts; lib/node/host.ts
// writes it): a URL's last answer is served again without reading its service only while nothing it
// could depend on changed.
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CachedAnswer, createAnswerRoutes, HOT_MS } from '../../lib/http/cached-answer';
import { createRenderedJsonCache, type RenderedAnswer } from '../../lib/http/cached-json';
import { readThrough, requireFreshReading } from '../../lib/store/shared-read';
import { createTestDeps, type TestDeps } from '../helpers/deps';

const URL_ = 'http://fast.test/api/thing';
let clock: number;
let deps: TestDeps;
let reads: number;
let value: { n: number };
let fail: boolean;
/** What a read waits for before answering (a slow read), and how long it takes on the clock. */
let gate: Promise<void>;
let readMs: number;

const thing: CachedAnswer<undefined, { n: number }, { n: number }> = {
  read: async () => {
    reads += 1;
    await gate;
    clock += readMs;
    if (fail) throw new Error('store down');
    return value;
  },
  present: (v) => ({ body: { n: v.n }, options: { basis: [v], cacheControl: 'public, max-age=30' } }),
};

function setUp(maxUrls?: number) {
  const routes = createAnswerRoutes(createRenderedJsonCache(), maxUrls);
  routes.remember(URL_, { answer: thing, query: undefined, key: '/api/thing', path: '/api/thing' });
  return routes;
}

const get = (headers: Record<string, string> = {}, url = URL_) => new Request(url, { headers });

beforeEach(() => {
  clock = 1_700_000_000_000;
  deps = createTestDeps({}, { now: () => clock });
  reads = 0;
  value = { n: 1 };
  fail = false;
  gate = Promise.resolve();
  readMs = 0;
});

describe('fast path: the immediate answer', () => {
  it('serves the last answer, 200 and 304, without reading again', async () => {
    const routes = setUp();
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined(); // nothing answered yet
    const first = (await routes.answer(get(), deps)) as Response;
    const etag = first.headers.get('ETag') as string;
    expect(reads).toBe(1);
    const again = routes.answerNow(URL_, undefined, deps) as RenderedAnswer;
    expect(again.status).toBe(200);
    expect(again.body).toBe('{"n":1}');
    expect(again.headers.ETag).toBe(etag);
    expect(again.headers['Content-Length']).toBe('7');
    expect(routes.answerNow(URL_, etag, deps)?.body).toBeNull();
    expect(routes.answerNow(URL_, etag, deps)?.status).toBe(304);
    expect(routes.answerNow(URL_, '"other"', deps)?.status).toBe(200);
    expect(reads).toBe(1);
    expect(routes.answered()).toBe(5);
  });

  it('stops once HOT_MS have passed since the read began, however long the read took', async () => {
    const routes = setUp();
    readMs = 80;
    await routes.answer(get(), deps); // read from clock 0 to 80
    clock += HOT_MS - 80 - 1;
    expect(routes.answerNow(URL_, undefined, deps)).toBeDefined();
    clock += 1;
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
  });

  it('stops when the clock is set back before its read began', async () => {
    const routes = setUp();
    await routes.answer(get(), deps);
    clock -= 1;
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
    await routes.answer(get(), deps);
    expect(routes.answerNow(URL_, undefined, deps)).toBeDefined();
    expect(reads).toBe(2);
  });

  it('stops as soon as this instance holds a new shared reading', async () => {
    const routes = setUp();
    await routes.answer(get(), deps);
    await readThrough(deps, {
      key: 'test-kind',
      schema: z.number(),
      freshMs: 60_000,
      read: async () => ({ value: 1, readAt: clock }),
    });
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
  });

  it('keeps no last answer for a URL forgotten while its read was under way', async () => {
    const routes = setUp(1);
    let open = () => {};
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const answering = routes.answer(get(), deps);
    const other = 'http://fast.test/api/other';
    routes.remember(other, { answer: thing, query: undefined, key: '/api/other', path: '/api/other' });
    open();
    expect(await answering).toBeDefined();
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
  });

  it("ends every URL's last answer when any read fails", async () => {
    const routes = setUp();
    const other = 'http://fast.test/api/other';
    routes.remember(other, { answer: thing, query: undefined, key: '/api/other', path: '/api/other' });
    await routes.answer(get(), deps);
    expect(routes.answerNow(URL_, undefined, deps)).toBeDefined();
    fail = true;
    expect(await routes.answer(get({}, other), deps)).toBeUndefined();
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
  });

  it('stops as soon as the coalescing cache stores or forgets anything', async () => {
    const routes = setUp();
    await routes.answer(get(), deps);
    await deps.cache.get('other', 1_000, async () => 1);
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
    value = { n: 2 };
    expect(await ((await routes.answer(get(), deps)) as Response).text()).toBe('{"n":2}');
    expect(routes.answerNow(URL_, undefined, deps)?.body).toBe('{"n":2}');
    deps.cache.delete('other');
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
  });

  it('stops as soon as a fresh shared reading is asked for', async () => {
    const routes = setUp();
    await routes.answer(get(), deps);
    requireFreshReading(deps, 'mainnet-gas');
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
  });

  it('is not made from a read during which something changed, nor kept past a failed read', async () => {
    const routes = setUp();
    const answering = routes.answer(get(), deps);
    deps.cache.delete('anything'); // while the read is in flight
    await answering;
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
    await routes.answer(get(), deps);
    expect(routes.answerNow(URL_, undefined, deps)).toBeDefined();
    clock += HOT_MS;
    fail = true;
    expect(await routes.answer(get(), deps)).toBeUndefined(); // the app answers a failed read
    clock -= HOT_MS; // even within the window the failed URL's last answer is gone
    expect(routes.answerNow(URL_, undefined, deps)).toBeUndefined();
  });
});
