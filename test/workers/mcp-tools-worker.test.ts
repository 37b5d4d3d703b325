// Every MCP tool called with valid arguments through the Worker's fetch handler in workerd, against
// the upstream simulators and the PostgreSQL 15 (through Neon's driver) that global-setup.ts started.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Pool } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import worker from '../../functions/index';
import { outputSchemaOf } from '../../lib/mcp/tool';
import { bestTimeTool } from '../../lib/mcp/tools/best-time';
import { currentGasTool } from '../../lib/mcp/tools/current-gas';
import { ethPriceTool } from '../../lib/mcp/tools/eth-price';
import { forecastAccuracyTool } from '../../lib/mcp/tools/forecast-accuracy';
import { gasForecastTool } from '../../lib/mcp/tools/gas-forecast';
import { gasHistoryTool } from '../../lib/mcp/tools/gas-history';
import { l2GasTool } from '../../lib/mcp/tools/l2-gas';
import { transactionCostTool } from '../../lib/mcp/tools/transaction-cost';
import { ForecastAccuracyResponseSchema } from '../../lib/schemas/forecast-accuracy';
import { setup, useNeonRelay, workerEnv } from './test-setup';

let client: Client;

beforeAll(async () => {
  useNeonRelay();
  client = new Client({ name: 'workerd-tools-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('https://gas.test/api/mcp'), {
      fetch: async (input, init) => {
        const ctx = createExecutionContext();
        const res = await worker.fetch(new Request(input, init), workerEnv, ctx);
        await waitOnExecutionContext(ctx);
        return res;
      },
    }),
  );
  // Listing caches the output schemas: the client then validates every structured result below.
  await client.listTools();
});
afterAll(async () => {
  await client?.close();
});

/** Calls a tool that must succeed; returns its structured content, parsed with its output schema, and its text. */
async function call<O extends z.ZodRawShape>(
  tool: { name: string; output: O },
  args: Record<string, unknown> = {},
) {
  const name = tool.name;
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
  expect(result.isError, `${name}: ${text}`).not.toBe(true);
  // Secrets of the simulated providers (API keys inside URLs) never reach a result.
  for (const url of Object.values(setup.env)) {
    const key = /\/(sim-secret[^/?]*)/.exec(url)?.[1];
    if (key) expect(text + JSON.stringify(result.structuredContent)).not.toContain(key);
  }
  const data = outputSchemaOf(tool).parse(result.structuredContent) as z.output<
    ReturnType<typeof outputSchemaOf<O>>
  > & { citation: string };
  expect(text).toContain(data.citation);
  return { data, text };
}

describe('MCP tools on the Worker in workerd, valid calls', () => {
  it('get_current_gas answers ordered tiers from the simulated providers', async () => {
    const { data } = await call(currentGasTool);
    expect(data.low).toBeGreaterThan(0);
    expect(data.low).toBeLessThanOrEqual(data.average);
    expect(data.average).toBeLessThanOrEqual(data.high);
  });

  it('get_eth_price answers a positive USD price', async () => {
    const { data } = await call(ethPriceTool);
    expect(data.usd).toBeGreaterThan(0);
  });

  it('get_l2_gas answers all four networks, and one when asked', async () => {
    const all = await call(l2GasTool);
    expect(all.data.networks.map((n) => n.id)).toEqual(['arbitrum', 'optimism', 'base', 'polygon']);
    for (const n of all.data.networks) expect(n.gasPriceGwei, n.id).toBeGreaterThan(0);
    const base = await call(l2GasTool, { network: 'base' });
    expect(base.data.networks).toHaveLength(1);
    expect(base.data.networks[0]).toMatchObject({ id: 'base', feeCompleteness: 'full_estimate' });
    expect(base.data.networks[0]?.estimatedL1DataFeeUsd).toBeGreaterThan(0);
  });

  it('get_gas_history reads the Postgres store through Neon', async () => {
    // One stored slot three hours back, with figures no live reading has.
    const slotStart = Math.floor((Date.now() - 3 * 3_600_000) / 90_000) * 90_000;
    const pool = new Pool({ connectionString: setup.env.DATABASE_URL });
    pool.on('error', () => {});
    try {
      await pool.query(
        `INSERT INTO mainnet_snapshots (slot_start, read_at, block_number, base_fee_gwei, low_gwei, average_gwei, high_gwei, source)
         VALUES ($1, $1, 1, 7.5, 8.25, 9.125, 11.5, 'workerd-test') ON CONFLICT DO NOTHING`,
        [new Date(slotStart).toISOString()],
      );
    } finally {
      await pool.end();
    }
    const { data } = await call(gasHistoryTool, { range: '6h' });
    expect(data.meta.requestedRange).toBe('6h');
    expect(data.points).toContainEqual({ timestamp: new Date(slotStart).toISOString(), gasPrice: 9.125 });
  });

  it('get_gas_forecast and best_time_to_transact answer the asked timeframe with a decision', async () => {
    const forecast = await call(gasForecastTool, { timeframe: '6h' });
    expect(forecast.data.timeframe).toBe('6h');
    expect(forecast.data.predictions).toHaveLength(6);
    const nextHour = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
    expect(forecast.data.predictions.map((p) => Date.parse(p.timestamp))).toEqual(
      Array.from({ length: 6 }, (_, i) => nextHour + i * 3_600_000),
    );
    const best = await call(bestTimeTool, { timeframe: '12h' });
    expect(best.data.timeframe).toBe('12h');
    // The best time is one of the asked 12 hours, or now when none of them is cheaper than now
    // (SPEC decision 1: then send_now, nothing to wait for); the summary says what to do.
    const { decision } = best.data;
    const at = Date.parse(decision.nextBestAt);
    if (at < nextHour) {
      expect(decision.recommendation).toBe('send_now');
      expect(decision.nextBestEtaMinutes).toBe(0);
      expect(at).toBeGreaterThan(nextHour - 3_600_000 - 60_000);
    } else {
      expect((at - nextHour) % 3_600_000).toBe(0);
      expect(at - nextHour).toBeLessThan(12 * 3_600_000);
    }
    expect(best.text).toMatch(best.data.decision.recommendation === 'wait' ? /wait/i : /now/i);
  });

  it('estimate_transaction_cost prices mainnet and an OP Stack network', async () => {
    const mainnet = await call(transactionCostTool, { gasLimit: 65_000, tier: 'high' });
    expect(mainnet.data).toMatchObject({ gasLimit: 65_000, tier: 'high', network: 'mainnet' });
    expect(mainnet.data.execution.gwei).toBeGreaterThan(0);
    const op = await call(transactionCostTool, { gasLimit: 21_000, network: 'optimism' });
    expect(op.data.feeCompleteness).toBe('full_estimate');
    expect(op.data.total?.native).toBeGreaterThan(op.data.execution.native);
  });

  it('get_forecast_accuracy scores a stored forecast read through Neon, as GET /api/forecast-accuracy does', async () => {
    // One forecast made 30 hours ago and scored: 12 gwei said for every hour, 10 came; too little
    // history is stored for a replay, so the live forecast is what there is to score.
    const origin = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 30 * 3_600_000;
    const hour = (k: number) => new Date(origin + k * 3_600_000).toISOString();
    const points = Array.from({ length: 24 }, (_, i) => ({
      timestamp: hour(i + 1),
      low: 11,
      average: 12,
      high: 13,
      confidence: 0.55,
    }));
    const decision = {
      recommendation: 'send_now',
      expectedSavingsPct: 0,
      expectedGas: 10,
      nextBestAt: hour(0),
      confidence: 0.8,
    };
    const outcome = { actual: Array(24).fill(10), sameHourYesterday: Array(24).fill(10) };
    const pool = new Pool({ connectionString: setup.env.DATABASE_URL });
    pool.on('error', () => {});
    try {
      await pool.query(
        `INSERT INTO hourly_forecasts (origin_hour, issued_at, current_average_gwei, current_read_at, current_source,
           points, decision, using_fallback_data, data_points, scored_at, outcome)
         VALUES ($1, $1, 10, $1, 'workerd-test', $2, $3, false, 100, now(), $4) ON CONFLICT DO NOTHING`,
        [hour(0), JSON.stringify(points), JSON.stringify(decision), JSON.stringify(outcome)],
      );
    } finally {
      await pool.end();
    }
    const { data } = await call(forecastAccuracyTool, { window: '7d' });
    expect(data).toMatchObject({
      window: '7d',
      source: 'live',
      origins: 1,
      scoredFrom: hour(0),
      scoredTo: hour(0),
    });
    expect(data.mae?.model).toBeCloseTo(2, 9);
    expect(data.decision).toEqual({
      waits: 0,
      realizedSavingPct: 0,
      oracleSavingPct: 0,
      dearerWaitsPct: null,
      severeWaitsPct: null,
    });
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request('https://gas.test/api/forecast-accuracy'), workerEnv, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    const { citation, tier, ...body } = ForecastAccuracyResponseSchema.parse(await res.json());
    expect(tier).toBe('free');
    expect(citation).toBe(data.citation);
    expect({ ...body, citation }).toEqual(data);
  });
});
