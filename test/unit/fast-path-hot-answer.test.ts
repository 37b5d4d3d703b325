// The Node host's immediate answer (AnswerRoutes.answerNow, lib/http/cached-answer.ts): a URL's last
// answer is served again without reading its service only while nothing it could depend on changed.
import { beforeEach, describe, expect, it } from 'vitest';
import { type CachedAnswer, createAnswerRoutes, HOT_MS } from '../../lib/http/cached-answer';
import { createRenderedJsonCache } from '../../lib/http/cached-json';
import { requireFreshReading } from '../../lib/store/shared-read';
import { createTestDeps, type TestDeps } from '../helpers/deps';

const URL_ = 'http://fast.test/api/thing';
let clock: number;
let deps: TestDeps;
let reads: number;
let value: { n: number };
let fail: boolean;

const thing: CachedAnswer<undefined, { n: number }, { n: number }> = {
  read: async () => {
    reads += 1;
    if (fail) throw new Error('store down');
    return value;
  },
  present: (v) => ({ body: { n: v.n }, options: { basis: [v], cacheControl: 'public, max-age=30' } }),
};

function setUp() {
  const routes = createAnswerRoutes(createRenderedJsonCache());
  routes.remember(URL_, { answer: thing, query: undefined, key: '/api/thing', path: '/api/thing' });
  return routes;
}

const get = (headers: Record<string, string> = {}) => new Request(URL_, { headers });

beforeEach(() => {
  clock = 1_700_000_000_000;
  deps = createTestDeps({}, { now: () => clock });
  reads = 0;
  value = { n: 1 };
  fail = false;
});

describe('fast path: the immediate answer', () => {
  it('serves the last answer, 200 and 304, without reading again', async () => {
    const routes = setUp();
    expect(routes.answerNow(get(), deps)).toBeUndefined(); // nothing answered yet
    const first = (await routes.answer(get(), deps)) as Response;
    const etag = first.headers.get('ETag') as string;
    expect(reads).toBe(1);
    const again = routes.answerNow(get(), deps) as Response;
    expect(again.status).toBe(200);
    expect(await again.text()).toBe('{"n":1}');
    expect(again.headers.get('ETag')).toBe(etag);
    expect(routes.answerNow(get({ 'If-None-Match': etag }), deps)?.status).toBe(304);
    expect(routes.answerNow(get({ 'If-None-Match': '"other"' }), deps)?.status).toBe(200);
    expect(reads).toBe(1);
    expect(routes.answered()).toBe(4);
  });

  it('stops once HOT_MS have passed', async () => {
    const routes = setUp();
    await routes.answer(get(), deps);
    clock += HOT_MS - 1;
    expect(routes.answerNow(get(), deps)).toBeDefined();
    clock += 1;
    expect(routes.answerNow(get(), deps)).toBeUndefined();
  });

  it('stops as soon as the coalescing cache stores or forgets anything', async () => {
    const routes = setUp();
    await routes.answer(get(), deps);
    await deps.cache.get('other', 1_000, async () => 1);
    expect(routes.answerNow(get(), deps)).toBeUndefined();
    value = { n: 2 };
    expect(await ((await routes.answer(get(), deps)) as Response).text()).toBe('{"n":2}');
    expect(await (routes.answerNow(get(), deps) as Response).text()).toBe('{"n":2}');
    deps.cache.delete('other');
    expect(routes.answerNow(get(), deps)).toBeUndefined();
  });

  it('stops as soon as a fresh shared reading is asked for', async () => {
    const routes = setUp();
    await routes.answer(get(), deps);
    requireFreshReading(deps, 'mainnet-gas');
    expect(routes.answerNow(get(), deps)).toBeUndefined();
  });

  it('is not made from a read during which something changed, nor kept past a failed read', async () => {
    const routes = setUp();
    const answering = routes.answer(get(), deps);
    deps.cache.delete('anything'); // while the read is in flight
    await answering;
    expect(routes.answerNow(get(), deps)).toBeUndefined();
    await routes.answer(get(), deps);
    expect(routes.answerNow(get(), deps)).toBeDefined();
    clock += HOT_MS;
    fail = true;
    expect(await routes.answer(get(), deps)).toBeUndefined(); // the app answers a failed read
    clock -= HOT_MS; // even within the window the failed URL's last answer is gone
    expect(routes.answerNow(get(), deps)).toBeUndefined();
  });
});
