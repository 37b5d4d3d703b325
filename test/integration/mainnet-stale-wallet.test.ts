import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseGwei } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { createTestDeps } from '../helpers/deps';
import { startUpstreams, type Upstreams } from '../upstreams';
import { HEALTHY_VIEW } from '../upstreams/chain-model';

/** The tiers' documented full blocks (README, OpenAPI): low 2, average 4, high 6. */
const TIER_BLOCKS = { low: 2, average: 4, high: 6 } as const;
type TierName = keyof typeof TIER_BLOCKS;
type Tier = {
  maxPriorityFeePerGas: number;
  maxFeePerGas: number;
  estimatedWaitSeconds: { p50: number; p90: number } | null;
};
type GasBody = {
  low: number;
  average: number;
  high: number;
  source: string;
  blockNumber: number;
  updatedAt: string;
  nextBaseFee: number;
  tiers: Record<TierName, Tier>;
  walletFeesNote: string | null;
};

const wei = (gwei: number) => parseGwei(gwei.toFixed(9));

/**
 * The lowest base fee a sender can meet `blocks` full blocks after `nextBaseFee` when each raises it
 * by the most EIP-1559 allows (an eighth, at least 1 wei), computed here apart from the service.
 */
function baseFeeAfterFullBlocks(nextBaseFee: bigint, blocks: number): bigint {
  let fee = nextBaseFee;
  for (let i = 0; i < blocks; i += 1) fee += fee / 8n > 0n ? fee / 8n : 1n;
  return fee;
}

/** The 12-s slots from the block stamped `blockSeconds` to `atMs`, counted up: each may hold a full block. */
const slotsSince = (blockSeconds: number, atMs: number) => Math.ceil((atMs - blockSeconds * 1000) / 12_000);

let now = Math.floor(Date.now() / 12_000) * 12_000 + 3_000;
let up: Upstreams;
const clients: Client[] = [];

beforeAll(async () => {
  up = await startUpstreams({ now: () => now });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await up.reset();
});
afterAll(async () => {
  await up?.close();
});

/** An app on the shared fake clock, its live reading of mainnet, and every mainnet upstream then refusing. */
async function readThenFailEverything() {
  const deps = createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: '400' }, { now: () => now });
  const app = createApp(deps);
  const live = (await (await app.request('/api/gas')).json()) as GasBody;
  expect(live.source).toBe('rpc-1');
  expect(live.walletFeesNote ?? null).toBeNull();
  const blockSeconds = up.mainnet[0]!.model.timestampOf(live.blockNumber, HEALTHY_VIEW);
  await Promise.all(up.mainnet.map((sim) => sim.fault('refuse')));
  await up.etherscan.fault('refuse');
  const client = new Client({ name: 'stale-wallet-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://gas.test/api/mcp'), {
      fetch: async (input, init) => app.fetch(new Request(input, init)),
    }),
  );
  clients.push(client);
  await client.listTools();
  const tool = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).not.toBe(true);
    return {
      text: (result.content as Array<{ text: string }>)[0]?.text ?? '',
      data: result.structuredContent as Record<string, unknown>,
    };
  };
  return { app, live, blockSeconds, tool };
}

/** The tiers, tips and next base fee of a stale answer are the reading's, as SPEC extension 16 defines them. */
function expectReadingKept(served: GasBody, live: GasBody) {
  expect(served).toMatchObject({
    source: `stale:${live.source}`,
    low: live.low,
    average: live.average,
    high: live.high,
    nextBaseFee: live.nextBaseFee,
    blockNumber: live.blockNumber,
    updatedAt: live.updatedAt,
  });
  for (const name of ['low', 'average', 'high'] as const) {
    expect(served.tiers[name].maxPriorityFeePerGas).toBe(live.tiers[name].maxPriorityFeePerGas);
    expect(wei(served[name])).toBe(wei(served.nextBaseFee) + wei(served.tiers[name].maxPriorityFeePerGas));
  }
}

describe('GET /api/gas serving a last good reading', () => {
  it("widens each tier's max fee to cover its full blocks from serving, and through the cached copy's life", async () => {
    const start = now;
    const { app, live, blockSeconds, tool } = await readThenFailEverything();
    now = start + 40_000; // the reading is due again; every upstream refuses
    const res = await app.request('/api/gas');
    const served = (await res.json()) as GasBody;
    expectReadingKept(served, live);
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBe(30);
    const slotsNow = slotsSince(blockSeconds, now);
    const slotsAtExpiry = slotsSince(blockSeconds, now + maxAge * 1000);
    expect(slotsAtExpiry).toBeLessThanOrEqual(8); // still a sensible cap: widened, not dropped
    for (const name of ['low', 'average', 'high'] as const) {
      const tier = served.tiers[name];
      const maxFee = wei(tier.maxFeePerGas);
      const tip = wei(tier.maxPriorityFeePerGas);
      const next = wei(served.nextBaseFee);
      // Sent now, the transaction pays its whole tip through the tier's blocks after every slot since
      // the reading's block; and so does a copy a cache serves until it expires.
      expect(maxFee, name).toBeGreaterThanOrEqual(
        baseFeeAfterFullBlocks(next, TIER_BLOCKS[name] + slotsNow) + tip,
      );
      expect(maxFee, name).toBeGreaterThanOrEqual(
        baseFeeAfterFullBlocks(next, TIER_BLOCKS[name] + slotsAtExpiry) + tip,
      );
      // The waits of a reading this recent stay as read.
      expect(tier.estimatedWaitSeconds).toEqual(live.tiers[name].estimatedWaitSeconds);
    }
    expect(served.walletFeesNote).toContain(`block ${live.blockNumber}`);
    expect(served.walletFeesNote).toContain(`${slotsAtExpiry} full blocks`);

    // The dashboard and the forecast serve the same fields at the same moment.
    const dashboard = (await (await app.request('/api/dashboard')).json()) as { currentGas: GasBody };
    const forecast = (await (await app.request('/api/gas-predictions?timeframe=6h')).json()) as {
      current: GasBody;
    };
    for (const current of [dashboard.currentGas, forecast.current]) {
      expect(current.source).toBe(served.source);
      expect(current.tiers).toEqual(served.tiers);
      expect(current.walletFeesNote).toBe(served.walletFeesNote);
    }

    // The MCP tools say in their first sentence that the fee suggestion comes from a stale reading.
    const cost = await tool('estimate_transaction_cost', { network: 'mainnet', tier: 'low' });
    const sentence = cost.text.split(/(?<=\.) /)[0] ?? '';
    expect(sentence).toContain('from a stale reading');
    expect(sentence).toContain(`taken at ${live.updatedAt}, 40 s ago`);
    expect(cost.data.maxFeePerGas).toBe(served.tiers.low.maxFeePerGas);
    expect(cost.text).toContain('(max fee widened for the blocks since that reading)');
    const gas = await tool('get_current_gas');
    expect(gas.text).toMatch(/^Ethereum mainnet gas from a stale reading \(live upstreams failing/);
    expect((gas.data.tiers as GasBody['tiers']).average.maxFeePerGas).toBe(served.tiers.average.maxFeePerGas);
  });

  it('changes its max fee and ETag as slots pass, so a revalidated copy never keeps an outgrown one', async () => {
    const start = now;
    const { app } = await readThenFailEverything();
    now = start + 35_000;
    const first = await app.request('/api/gas');
    const firstBody = (await first.json()) as GasBody;
    const etag = first.headers.get('etag') ?? '';
    now += 12_000; // one more slot: one more block may have been mined
    const second = await app.request('/api/gas', { headers: { 'If-None-Match': etag } });
    expect(second.status).toBe(200);
    expect(second.headers.get('etag')).not.toBe(etag);
    const secondBody = (await second.json()) as GasBody;
    expect(wei(secondBody.tiers.low.maxFeePerGas)).toBeGreaterThan(wei(firstBody.tiers.low.maxFeePerGas));
  });

  it('still serves every tier a max fee covering its blocks, and its waits, 4 minutes on (SPEC extension 16)', async () => {
    const start = now;
    const { app, live, blockSeconds, tool } = await readThenFailEverything();
    now = start + 4 * 60_000;
    const served = (await (await app.request('/api/gas')).json()) as GasBody;
    expectReadingKept(served, live);
    const slotsAtExpiry = slotsSince(blockSeconds, now + 30_000);
    expect(slotsAtExpiry).toBeGreaterThan(20);
    for (const name of ['low', 'average', 'high'] as const) {
      const tier = served.tiers[name];
      // Until 2026-11-28 (for a morning) a reading this old served null max fees and waits.
      expect(wei(tier.maxFeePerGas)).toBeGreaterThanOrEqual(
        baseFeeAfterFullBlocks(wei(served.nextBaseFee), TIER_BLOCKS[name] + slotsAtExpiry) +
          wei(tier.maxPriorityFeePerGas),
      );
      expect(tier.estimatedWaitSeconds).toEqual(live.tiers[name].estimatedWaitSeconds);
    }
    expect(served.walletFeesNote).toMatch(/a wide cap on an old reading/);
    const dashboard = (await (await app.request('/api/dashboard')).json()) as { currentGas: GasBody };
    expect(dashboard.currentGas.tiers).toEqual(served.tiers);

    const cost = await tool('estimate_transaction_cost', { network: 'mainnet' });
    expect(cost.data.maxFeePerGas).toBe(served.tiers.average.maxFeePerGas);
    expect(cost.text.split(/(?<=\.) /)[0]).toContain('from a stale reading');
    expect(cost.text).toContain('(max fee widened for the blocks since that reading)');
    const gas = await tool('get_current_gas');
    expect(gas.text).toMatch(/^Ethereum mainnet gas from a stale reading/);
    expect(gas.text).toContain('widened for the blocks since that reading');
  });

  it('changes the note and the ETag only when the blocks counted change, not every second', async () => {
    const start = now;
    const { app, blockSeconds } = await readThenFailEverything();
    // Stale (past 30 s), and 6 s into a slot of the count (block time + 12-s slots, to the answer's end).
    const slotStart = (n: number) => blockSeconds * 1000 + n * 12_000 - 31_000;
    let n = 0;
    while (slotStart(n) < start + 35_000) n += 1;
    now = slotStart(n) + 6_000;
    const first = await app.request('/api/gas');
    const firstBody = (await first.json()) as GasBody;
    now += 1_000;
    const second = await app.request('/api/gas');
    const secondBody = (await second.json()) as GasBody;
    expect(secondBody.source).toMatch(/^stale:/);
    // Same slots counted, same widening: the same note and body tag (until 2026-11-28 the note held the
    // reading's age to the second, so each second made a new body).
    expect(secondBody.tiers).toEqual(firstBody.tiers);
    expect(secondBody.walletFeesNote).toBe(firstBody.walletFeesNote);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    // A slot later the count, the max fees and the tag move.
    now += 12_000;
    const third = await app.request('/api/gas');
    expect(third.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });
});
