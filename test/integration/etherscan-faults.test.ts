import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { getGasWithoutLeaks } from '../helpers/gas-request';
import { startUpstreams, type Upstreams } from '../upstreams';

let up: Upstreams;

beforeAll(async () => {
  up = await startUpstreams();
});
afterEach(async () => {
  await up.reset();
});
afterAll(async () => {
  await up?.close();
});

/** A short budget, so a hung Etherscan costs well under a second. */
const TIMEOUT_ENV = { UPSTREAM_TIMEOUT_MS: '400' };

/** GETs /api/gas and checks that neither the body nor any log line carries a simulator URL, port or key. */
const getGas = (deps: TestDeps) => getGasWithoutLeaks(up, deps, ['/v2/api', 'apikey', 'gasoracle']);

/** The two Etherscan faults, with the error kind the backstop logs for each. */
const ETHERSCAN_FAULTS = [
  { name: 'hangs', kind: 'timeout', breakIt: () => up.etherscan.fault('hang') },
  {
    name: 'answers HTTP 429',
    kind: 'http',
    breakIt: () => up.etherscan.fault('http-429', { retryAfter: 7 }),
  },
];

/** Every mainnet RPC provider refuses connections, and Etherscan fails as given. */
async function failEverything(breakIt: () => Promise<void>) {
  await Promise.all(up.mainnet.map((sim) => sim.fault('refuse')));
  await breakIt();
}

/** The backstop was tried (after every provider failed) and its failure logged by kind. */
function expectBackstopFailureLogged(deps: TestDeps, kind: string) {
  expect(deps.logs.some((line) => line.includes('every mainnet rpc provider failed; trying etherscan'))).toBe(
    true,
  );
  const failed = deps.logs.filter((line) => line.includes('etherscan backstop failed'));
  expect(failed, deps.logs.join('\n')).toHaveLength(1);
  expect(failed[0]).toContain(`"error":"etherscan ${kind}"`);
}

describe('GET /api/gas with every RPC provider refusing and Etherscan failing', () => {
  it.each(ETHERSCAN_FAULTS)(
    'answers 503 problem+json with Retry-After on a cold process when Etherscan $name',
    async ({ kind, breakIt }) => {
      await failEverything(breakIt);
      const deps = createTestDeps({ ...up.env, ...TIMEOUT_ENV });
      const { res, body } = await getGas(deps);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(body).toMatchObject({ status: 503, title: 'Gas data unavailable' });
      expect(up.etherscan.requests.byMethod.gasoracle).toBe(1);
      expectBackstopFailureLogged(deps, kind);
    },
  );

  it.each(ETHERSCAN_FAULTS)(
    'serves the last good reading under 5 minutes old as stale: when Etherscan $name',
    async ({ kind, breakIt }) => {
      const lastGood = createMemoryLastGoodStore();
      const first = createTestDeps({ ...up.env, ...TIMEOUT_ENV }, { lastGood });
      const live = await getGas(first);
      expect(live.res.status).toBe(200);
      expect(live.body.source).toMatch(/^rpc-/);
      await failEverything(breakIt);
      // Another instance of the fleet, 4 minutes later: the shared reading is due, and every upstream fails.
      const later = createTestDeps(
        { ...up.env, ...TIMEOUT_ENV },
        { lastGood, now: () => Date.now() + 4 * 60_000 },
      );
      const { res, body } = await getGas(later);
      expect(res.status).toBe(200);
      expect(body).toMatchObject({
        low: live.body.low,
        average: live.body.average,
        high: live.body.high,
        baseFee: live.body.baseFee,
        blockNumber: live.body.blockNumber,
        updatedAt: live.body.updatedAt,
        source: `stale:${live.body.source}`,
      });
      expect(up.etherscan.requests.byMethod.gasoracle).toBe(1);
      expectBackstopFailureLogged(later, kind);
      expect(later.logs.some((line) => line.includes('serving last good mainnet gas'))).toBe(true);
    },
  );

  it.each(ETHERSCAN_FAULTS)(
    'serves this instance its own last good reading as stale: when Etherscan $name',
    async ({ kind, breakIt }) => {
      let offsetMs = 0;
      const deps = createTestDeps({ ...up.env, ...TIMEOUT_ENV }, { now: () => Date.now() + offsetMs });
      const live = await getGas(deps);
      expect(live.res.status).toBe(200);
      await failEverything(breakIt);
      offsetMs = 60_000; // the reading is due again
      const { res, body } = await getGas(deps);
      expect(res.status).toBe(200);
      expect(body).toMatchObject({ low: live.body.low, source: `stale:${live.body.source}` });
      expectBackstopFailureLogged(deps, kind);
    },
  );

  it.each(ETHERSCAN_FAULTS)(
    'answers 503 once the last good reading is over 5 minutes old and Etherscan $name',
    async ({ breakIt }) => {
      const lastGood = createMemoryLastGoodStore();
      const first = createTestDeps({ ...up.env, ...TIMEOUT_ENV }, { lastGood });
      expect((await getGas(first)).res.status).toBe(200);
      await failEverything(breakIt);
      const later = createTestDeps(
        { ...up.env, ...TIMEOUT_ENV },
        { lastGood, now: () => Date.now() + 5 * 60_000 + 5_000 },
      );
      const { res, body } = await getGas(later);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(body).toMatchObject({ status: 503, title: 'Gas data unavailable' });
    },
  );
});
