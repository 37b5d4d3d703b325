import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { readMainnetGasFromRpc } from '../../lib/upstream/rpc-mainnet-gas';
import { createTestDeps, forgetReadings, type TestDeps } from '../helpers/deps';
import {
  expectNoLeaks,
  type FaultMode,
  type FaultOptions,
  startUpstreams,
  type Upstreams,
} from '../upstreams';
import { HEALTHY_VIEW } from '../upstreams/chain-model';

let upstreams: Upstreams;

// Real blocks 17173049-17173050 (../shared/data, ethereum-etl, MIT): their 1st (gas-limit weighted,
// computeRewardPercentiles over the CSV) and 70/90/99th percentile tips and the next base fee; the tiers
// they imply are hand-checked in test/unit/oracle-tiers.test.ts.
const REAL_HISTORY = {
  baseFeePerGas: [80_869_370_967n, 77_334_732_501n, 77_651_468_498n],
  gasUsedRatio: [9_755_040 / 30_000_000, 15_491_478 / 30_000_000],
  reward: [
    [100_000_000n, 2_790_000_000n, 14_656_609_773n, 50_000_000_000n],
    [0n, 3_000_000_000n, 19_828_512_659n, 50_000_000_000n],
  ],
};

// The simulators listen on 127.0.0.1, an address-only host: each is labelled by its place in the list.
const labelOf = (index: number) => `rpc-${index + 1}`;

/** GETs /api/gas and checks that neither the body nor any log line carries a configured URL, key, address or port. */
async function getGas(deps: TestDeps) {
  const res = await createApp(deps).request('/api/gas');
  const text = await res.text();
  const forbidden = [...upstreams.secrets, ...upstreams.all.map((sim) => sim.url), '/v3/', 'apikey'];
  for (const secret of forbidden) {
    expect(text).not.toContain(secret);
    for (const line of deps.logs) expect(line).not.toContain(secret);
  }
  expectNoLeaks(upstreams, text, ...deps.logs);
  return { res, body: JSON.parse(text) as Record<string, unknown> };
}

/** Whether an attempt of the provider labelled `label` was logged as failing with `kind`. */
function loggedFailure(deps: TestDeps, label: string, kind: string): boolean {
  return deps.logs.some(
    (line) => line.includes(`"provider":"${label}"`) && line.includes(`"kind":"${kind}"`),
  );
}

beforeAll(async () => {
  upstreams = await startUpstreams();
});

afterEach(async () => {
  await upstreams.reset();
});

afterAll(async () => {
  await upstreams?.close();
});

describe('GET /api/gas with healthy providers', () => {
  it('serves the primary provider, labelled by its place in the list, with the tiers its fee history implies', async () => {
    for (const sim of upstreams.mainnet) sim.setFeeHistory(REAL_HISTORY);
    const { res, body } = await getGas(createTestDeps(upstreams.env));
    expect(res.status).toBe(200);
    expect(body).toMatchObject({
      low: 80.546468498,
      average: 94.894029714,
      high: 127.651468498,
      baseFee: 77.651468498,
      source: labelOf(0),
    });
    expect(body.citation).toMatch(/updated \d{4}-\d\d-\d\dT/);
    expect(upstreams.mainnet[1]?.requests.total).toBe(0);
  });

  it('reads upstream once for concurrent requests (coalescing cache)', async () => {
    const deps = createTestDeps(upstreams.env);
    const app = createApp(deps);
    const answers = await Promise.all(Array.from({ length: 8 }, () => app.request('/api/gas')));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(upstreams.mainnet[0]?.requests.byMethod.eth_feeHistory).toBe(1);
  });
});

describe('GET /openapi.json', () => {
  it('documents /api/gas with its 503 and the source label format', async () => {
    const res = await createApp(createTestDeps(upstreams.env)).request('/openapi.json');
    const doc = (await res.json()) as {
      paths: Record<string, { get?: { responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> };
    };
    expect(Object.keys(doc.paths['/api/gas']?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '503']),
    );
    const source = doc.components.schemas.GasResponse?.properties?.source?.description ?? '';
    expect(source).toContain('stale:<label>');
    expect(source).toContain('etherscan');
    expect(source).toContain('rpc-N');
  });
});

describe('GET /api/gas when the primary provider fails', () => {
  const cases: [string, FaultMode, FaultOptions, string][] = [
    ['refuses connections', 'refuse', {}, 'network'],
    ['hangs', 'hang', {}, 'outrun'],
    ['answers HTTP 500', 'http-500', {}, 'http'],
    ['answers HTTP 429', 'http-429', {}, 'rate-limited'],
    ['answers a JSON-RPC error', 'rpc-error', {}, 'rpc-error'],
    ['answers malformed JSON', 'malformed', {}, 'malformed'],
    ['is on another chain', 'wrong-chain', {}, 'wrong-chain'],
    ['serves a head block ten minutes old', 'stale', {}, 'stale'],
    ['serves absurd fees', 'absurd', {}, 'absurd'],
    [
      'serves a fee history with a missing reward field',
      'malformed',
      { body: '{"jsonrpc":"2.0","id":0}' },
      'malformed',
    ],
  ];

  it.each(cases)('fails over to the next provider when the primary %s', async (_, mode, options, kind) => {
    await upstreams.mainnet[0]?.fault(mode, options);
    const deps = createTestDeps(upstreams.env);
    const { res, body } = await getGas(deps);
    expect(res.status).toBe(200);
    // The next provider, or the one after it when the next was slow past the hedge delay (a loaded
    // machine: CI once got rpc-3 here); never the failing primary.
    expect([labelOf(1), labelOf(2)]).toContain(body.source);
    expect(body.low as number).toBeLessThanOrEqual(body.average as number);
    expect(body.average as number).toBeLessThanOrEqual(body.high as number);
    expect(loggedFailure(deps, labelOf(0), kind)).toBe(true);
  });

  it('rejects a provider lagging the best block seen by more than three blocks', async () => {
    const deps = createTestDeps(upstreams.env);
    expect((await getGas(deps)).body.source).toBe(labelOf(0));
    forgetReadings(deps);
    await upstreams.mainnet[0]?.fault('lag', { blocks: 4 });
    const { body } = await getGas(deps);
    expect(body.source).toBe(labelOf(1));
    expect(deps.logs.some((line) => line.includes('"kind":"lag"'))).toBe(true);
  });

  it('labels providers by the names the operator gave them (name=url), in answers and logs', async () => {
    await upstreams.mainnet[0]?.fault('http-500');
    const [primary, backup] = upstreams.mainnet.map((sim) => sim.url);
    const deps = createTestDeps({
      ...upstreams.env,
      MAINNET_RPC_URLS: `home-node=${primary},Backup_1=${backup}`,
    });
    const { body } = await getGas(deps);
    expect(body.source).toBe('Backup_1');
    expect(
      deps.logs.some((line) => line.includes('"provider":"home-node"') && line.includes('"kind":"http"')),
    ).toBe(true);
  });

  it('moves past two failing providers to the third', async () => {
    await upstreams.mainnet[0]?.fault('http-500');
    await upstreams.mainnet[1]?.fault('rpc-error');
    const { body } = await getGas(createTestDeps(upstreams.env));
    expect(body.source).toBe(labelOf(2));
  });

  it('puts a provider that keeps failing in cooldown and stops asking it', async () => {
    const primary = upstreams.mainnet[0];
    await primary?.fault('http-500');
    const deps = createTestDeps(upstreams.env);
    for (let i = 0; i < 2; i++) {
      forgetReadings(deps);
      expect((await getGas(deps)).body.source).toBe(labelOf(1));
    }
    const asked = primary?.requests.total;
    expect(asked).toBeGreaterThan(0);
    forgetReadings(deps);
    expect((await getGas(deps)).body.source).toBe(labelOf(1));
    expect(primary?.requests.total).toBe(asked);
  });

  it('is not turned away as lagging after another provider served a head numbered far ahead', async () => {
    const ahead = upstreams.mainnet[0]?.model.headNumber(HEALTHY_VIEW) ?? 0;
    // Ahead of the real head, yet not above any mainnet block of its time: the bound cannot catch it.
    upstreams.mainnet[0]?.setHead({ number: ahead + 10_000 });
    const deps = createTestDeps(upstreams.env);
    expect((await getGas(deps)).body.source).toBe(labelOf(0));
    await upstreams.mainnet[0]?.fault('refuse');
    forgetReadings(deps);
    const { res, body } = await getGas(deps);
    expect(res.status).toBe(200);
    expect(body.source).toBe(labelOf(1));
    expect(deps.logs.some((line) => line.includes('"kind":"lag"'))).toBe(false);
  });

  it('rejects a head numbered above any mainnet block of its time (another chain), and keeps the others', async () => {
    // About Base's height now (2-s blocks since mid-June 2023), stamped now.
    upstreams.mainnet[0]?.setHead({ number: Math.floor((Date.now() / 1000 - 1_686_787_200) / 2) });
    const deps = createTestDeps(upstreams.env);
    const { body } = await getGas(deps);
    expect(body.source).toBe(labelOf(1));
    expect(loggedFailure(deps, labelOf(0), 'absurd')).toBe(true);
    upstreams.mainnet[0]?.setHead(undefined);
    forgetReadings(deps);
    expect((await getGas(deps)).body.source).toBe(labelOf(0));
  });

  it('keeps batching a provider whose edge refused one request with 403 (a firewall, not a batch refusal)', async () => {
    const primary = upstreams.mainnet[0]!;
    await primary.fault('http-403', { times: 1 });
    const deps = createTestDeps(upstreams.env);
    expect((await getGas(deps)).body.source).toBe(labelOf(1));
    expect(deps.logs.some((line) => line.includes('refuses batches'))).toBe(false);
    for (let i = 0; i < 2; i++) {
      const before = primary.requests.total;
      forgetReadings(deps);
      expect((await getGas(deps)).body.source).toBe(labelOf(0));
      // One batch; and, when its calls straddled a new block on the real clock (more likely under
      // load), the fee history asked again at the head (rpc-mainnet-gas.ts), never the calls one by one.
      const sent = primary.requests.log.slice(before - primary.requests.total);
      expect(sent[0]?.keys.length).toBeGreaterThan(1);
      expect(sent.slice(1).map((request) => request.keys)).toEqual(
        sent.length > 1 ? [['eth_feeHistory']] : [],
      );
    }
  });

  it('asks a provider cooling down before giving up when every other provider fails', async () => {
    const primary = upstreams.mainnet[0]!;
    // Slower than the hedge twice: outrun twice, so it cools down, though it answers.
    await primary.fault('delay', { ms: 600 });
    const deps = createTestDeps(upstreams.env);
    for (let i = 0; i < 2; i++) {
      forgetReadings(deps);
      expect((await getGas(deps)).body.source).toBe(labelOf(1));
    }
    await primary.fault('delay', { ms: 0 });
    await Promise.all([upstreams.mainnet[1]!.fault('refuse'), upstreams.mainnet[2]!.fault('http-500')]);
    await upstreams.etherscan.fault('http-500');
    forgetReadings(deps);
    const { res, body } = await getGas(deps);
    expect(res.status).toBe(200);
    expect(body.source).toBe(labelOf(0));
  });

  it('asks a hung provider from the reserve for two hedge delays, not its whole timeout', {
    timeout: 15_000,
  }, async () => {
    const primary = upstreams.mainnet[0]!;
    // A long attempt budget: a reserve given all of it would hold this request for 20 s.
    const deps = createTestDeps({ ...upstreams.env, UPSTREAM_TIMEOUT_MS: '20000' });
    await primary.fault('hang');
    for (let i = 0; i < 2; i++) {
      forgetReadings(deps);
      expect((await getGas(deps)).body.source).toBe(labelOf(1)); // outrun twice: cooling down
    }
    await Promise.all([upstreams.mainnet[1]!.fault('refuse'), upstreams.mainnet[2]!.fault('http-500')]);
    forgetReadings(deps);
    const asked = primary.requests.total;
    const { res, body } = await getGas(deps);
    expect(res.status).toBe(200);
    expect(body.source).toBe('etherscan');
    expect(primary.requests.total).toBe(asked + 1);
  });

  it('leaves a rate-limited provider out of the reserve', async () => {
    const primary = upstreams.mainnet[0]!;
    await primary.fault('http-429', { retryAfter: 120, times: 1 });
    const deps = createTestDeps(upstreams.env);
    expect((await getGas(deps)).body.source).toBe(labelOf(1));
    await Promise.all([upstreams.mainnet[1]!.fault('refuse'), upstreams.mainnet[2]!.fault('http-500')]);
    forgetReadings(deps);
    const asked = primary.requests.total;
    expect((await getGas(deps)).body.source).toBe('etherscan');
    expect(primary.requests.total).toBe(asked);
  });

  it('rejects a fresh head numbered days behind mainnet (another chain the chain-id check has not caught yet)', async () => {
    const deps = createTestDeps(upstreams.env);
    expect((await getGas(deps)).body.source).toBe(labelOf(0));
    // Sepolia's height in late 2026, stamped now, from a provider whose chain id was checked minutes ago.
    upstreams.mainnet[0]?.setHead({ number: 9_700_000 });
    forgetReadings(deps);
    const { body } = await getGas(deps);
    expect(body.source).toBe(labelOf(1));
    expect(loggedFailure(deps, labelOf(0), 'absurd')).toBe(true);
  });

  it.each(['null-answer', 'empty-answer'] as const)(
    'serves the reading with the fee history blob fee when eth_blobBaseFee answers without a quantity (%s)',
    async (mode) => {
      for (const sim of upstreams.mainnet) sim.setBlobSupport(mode);
      const deps = createTestDeps(upstreams.env);
      const { res, body } = await getGas(deps);
      expect(res.status).toBe(200);
      expect(body.source).toBe(labelOf(0));
      expect(body.nextBlobBaseFee).not.toBeNull();
    },
  );

  it.each([
    [-2, "two blocks behind the head: the reading follows the head (its next base fee is the head's)"],
    [2, "two blocks ahead of the head: the reading is stamped with its own block's time, never fresher"],
  ])('stamps a reading whose fee history ends %i blocks from the head answered (%s)', async (shift) => {
    // The calls straddled blocks, or reached two backends of one load balancer.
    const shifted: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const sent = JSON.parse(String(init?.body)) as
        | { id: number; method: string }
        | { id: number; method: string }[];
      const calls = Array.isArray(sent) ? sent : [sent];
      const body = (await res.json()) as { id: number; result?: { oldestBlock?: string } } | { id: number }[];
      for (const item of (Array.isArray(body) ? body : [body]) as {
        id: number;
        result?: { oldestBlock?: string };
      }[]) {
        const call = calls.find((c) => c.id === item.id);
        if (call?.method === 'eth_feeHistory' && item.result?.oldestBlock)
          item.result.oldestBlock = `0x${(BigInt(item.result.oldestBlock) + BigInt(shift)).toString(16)}`;
      }
      return Response.json(body, { status: res.status });
    };
    const model = upstreams.mainnet[0]!.model;
    const head = model.headNumber(HEALTHY_VIEW) - 2;
    const timestamp = Math.floor(Date.now() / 1000) - 25;
    for (const sim of upstreams.mainnet) sim.setHead({ number: head, timestamp });
    const reading = await readMainnetGasFromRpc(createTestDeps(upstreams.env, { fetch: shifted }));
    expect(reading.blockNumber).toBe(shift < 0 ? head : head + shift);
    expect(reading.blockTimestamp).toBe(shift < 0 ? timestamp : timestamp + 12 * shift);
  });

  it('checks the chain id once per provider per process', async () => {
    const deps = createTestDeps(upstreams.env);
    for (let i = 0; i < 3; i++) {
      forgetReadings(deps);
      await getGas(deps);
    }
    expect(upstreams.mainnet[0]?.requests.byMethod.eth_chainId).toBe(1);
    expect(upstreams.mainnet[0]?.requests.byMethod.eth_feeHistory).toBe(3);
  });
});

describe('the chain id, asked again', () => {
  let clock = Date.now();
  let clocked: Upstreams;
  beforeAll(async () => {
    clocked = await startUpstreams({ now: () => clock });
  });
  afterEach(async () => {
    await clocked.reset();
  });
  afterAll(async () => {
    await clocked?.close();
  });

  it('leaves a rate-limited provider alone for as long as its Retry-After says (at most 5 minutes)', async () => {
    const deps = createTestDeps(clocked.env, { now: () => clock });
    const primary = clocked.mainnet[0]!;
    const source = async () => {
      forgetReadings(deps);
      return ((await (await createApp(deps).request('/api/gas')).json()) as { source: string }).source;
    };
    await primary.fault('http-429', { retryAfter: 120, times: 1 });
    expect(await source()).toBe(labelOf(1));
    const asked = primary.requests.total;
    clock += 60_000;
    expect(await source()).toBe(labelOf(1));
    expect(primary.requests.total).toBe(asked);
    clock += 61_000;
    expect(await source()).toBe(labelOf(0));
  });

  it('asks a provider that refused a batch singly for 10 minutes, then with a batch again', async () => {
    const deps = createTestDeps(clocked.env, { now: () => clock });
    const primary = clocked.mainnet[0]!;
    await primary.fault('no-batch', { times: 1 });
    const requestsFor = async () => {
      const before = primary.requests.total;
      forgetReadings(deps);
      const body = (await (await createApp(deps).request('/api/gas')).json()) as { source: string };
      expect(body.source).toBe(labelOf(0));
      return primary.requests.total - before;
    };
    expect(await requestsFor()).toBe(1 + 4); // the refused batch, then chain id + the reading's three calls
    clock += 9 * 60_000;
    expect(await requestsFor()).toBe(3);
    clock += 2 * 60_000;
    // One batch of the reading's three calls, and the chain id (due again too) singly beside it: never
    // again in a batch to this provider, whose refusal may be a size limit the chain id tips it over.
    expect(await requestsFor()).toBe(2);
    expect(
      primary.requests.log
        .slice(-2)
        .map((r) => r.keys.length)
        .sort(),
    ).toEqual([1, 3]);
  });

  it('is trusted for 10 minutes, then asked again, and a provider now on another chain is dropped', async () => {
    const deps = createTestDeps(clocked.env, { now: () => clock });
    const primary = clocked.mainnet[0];
    const gas = async () => (await createApp(deps).request('/api/gas')).json() as Promise<{ source: string }>;
    expect((await gas()).source).toBe(labelOf(0));
    await primary?.fault('wrong-chain');
    clock += 9 * 60_000;
    forgetReadings(deps);
    expect((await gas()).source).toBe(labelOf(0));
    expect(primary?.requests.byMethod.eth_chainId).toBe(1);
    clock += 2 * 60_000;
    forgetReadings(deps);
    expect((await gas()).source).toBe(labelOf(1));
    expect(primary?.requests.byMethod.eth_chainId).toBe(2);
    expect(loggedFailure(deps, labelOf(0), 'wrong-chain')).toBe(true);
  });
});
