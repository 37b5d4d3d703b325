import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createLogger } from '../../lib/log';
import { MCP_SERVER_VERSION } from '../../lib/mcp/server';
import { outputSchemaOf } from '../../lib/mcp/tool';
import { TOOLS } from '../../lib/mcp/tools';
import { bestTimeTool } from '../../lib/mcp/tools/best-time';
import { currentGasTool } from '../../lib/mcp/tools/current-gas';
import { ethPriceTool } from '../../lib/mcp/tools/eth-price';
import { gasForecastTool } from '../../lib/mcp/tools/gas-forecast';
import { gasHistoryTool } from '../../lib/mcp/tools/gas-history';
import { transactionCostTool } from '../../lib/mcp/tools/transaction-cost';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { insertMainnetSnapshots, type MainnetSnapshot } from '../../lib/store/history-writes';
import { SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { expectNoLeaks, L2_NAMES, startUpstreams, type Upstreams } from '../upstreams';

const HOUR_MS = 3_600_000;

/** Two days of 90-second snapshots whose average tier is 30 + (hour of day) gwei. */
function snapshots(now: number): MainnetSnapshot[] {
  const rows: MainnetSnapshot[] = [];
  for (let slot = slotStartOf(now - 48 * HOUR_MS); slot < now - SLOT_MS; slot += SLOT_MS) {
    const average = 30 + new Date(slot).getUTCHours();
    rows.push({
      slotStart: slot,
      readAt: slot + 3_000,
      blockNumber: null,
      baseFeeGwei: average - 2,
      lowGwei: average - 1,
      averageGwei: average,
      highGwei: average + 5,
      source: 'import',
    });
  }
  return rows;
}

describe('MCP endpoint on the Node host over HTTP', () => {
  let up: Upstreams;
  let engine: DatabaseEngine;
  let host: NodeHost;
  let url: URL;
  const lines: string[] = [];
  const results: string[] = [];

  beforeAll(async () => {
    up = await startUpstreams();
    engine = await openDatabase({ kind: 'pglite' });
    await engine.migrate();
    await engine.withDb((db) => insertMainnetSnapshots(db, snapshots(Date.now())));
    host = await startNodeHost(
      { ...up.env, PORT: '0' },
      { log: createLogger((line) => lines.push(line)), scheduler: false, deps: { withDb: engine.withDb } },
    );
    url = new URL(`http://127.0.0.1:${host.port}/api/mcp`);
  });
  afterAll(async () => {
    await host?.close();
    await Promise.all([up?.close(), engine?.close()]);
  });

  async function connect(name = 'node-host-test'): Promise<Client> {
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    return client;
  }

  it('initializes with the server name, version and instructions', async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'gas-fee-api', version: MCP_SERVER_VERSION });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain('estimate_transaction_cost');
    await client.close();
  });

  it('lists the eight tools, read-only, with strict input and declared output schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'get_current_gas',
      'get_l2_gas',
      'get_eth_price',
      'best_time_to_transact',
      'estimate_transaction_cost',
      'get_gas_forecast',
      'get_gas_history',
      'get_forecast_accuracy',
    ]);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
      });
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema?.required).toContain('citation');
      expect(tool.description?.length).toBeGreaterThan(80);
    }
    const estimate = tools.find((t) => t.name === 'estimate_transaction_cost');
    expect(estimate?.inputSchema.properties).toMatchObject({
      gasLimit: { type: 'integer', minimum: 21_000, maximum: 30_000_000, default: 21_000 },
      network: { enum: ['mainnet', ...L2_NAMES], default: 'mainnet' },
      tier: { enum: ['low', 'average', 'high'] },
    });
    await client.close();
  });

  it.each([
    ['get_current_gas', {}],
    ['get_l2_gas', {}],
    ['get_l2_gas', { network: 'optimism' }],
    ['get_eth_price', {}],
    ['best_time_to_transact', {}],
    ['best_time_to_transact', { timeframe: '7d' }],
    ['estimate_transaction_cost', {}],
    ['estimate_transaction_cost', { network: 'base', gasLimit: 150_000 }],
    ['get_gas_forecast', { timeframe: '12h' }],
    ['get_gas_history', { range: '1d' }],
    ['get_forecast_accuracy', { window: '7d' }],
  ])('answers %s %j with a structured result that meets its output schema', async (name, args) => {
    const client = await connect();
    await client.listTools(); // the client then validates structuredContent against each outputSchema
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError ?? false).toBe(false);
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const { citation } = outputSchemaOf(tool).parse(result.structuredContent) as { citation: string };
    const text = (result.content as Array<{ type: string; text: string }>)[0]!;
    expect(text.type).toBe('text');
    expect(text.text.endsWith(citation)).toBe(true);
    expect(citation).toMatch(
      new RegExp(`^Data from Gas Fee API \\(http://localhost:${host.port}\\), .* updated `),
    );
    results.push(JSON.stringify(result));
    await client.close();
  });

  it('serves results that follow from the stored history and the live readings', async () => {
    const client = await connect();
    const call = async <O extends z.ZodRawShape>(tool: { name: string; output: O }, args = {}) => {
      const result = await client.callTool({ name: tool.name, arguments: args });
      return outputSchemaOf(tool).parse(result.structuredContent) as z.output<z.ZodObject<O>>;
    };

    const history = await call(gasHistoryTool, { range: '1d' });
    expect(history.meta).toMatchObject({ requestedRange: '1d', source: 'snapshots' });
    expect(history.points.length).toBeGreaterThan(200);
    for (const p of history.points) expect(p.gasPrice).toBeGreaterThanOrEqual(30);

    const forecast = await call(gasForecastTool, { timeframe: '12h' });
    expect(forecast.predictions).toHaveLength(12);
    expect(Date.parse(forecast.predictions[0]?.timestamp ?? '')).toBe(
      Math.floor(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS,
    );
    expect(forecast.dataPoints).toBeGreaterThan(1_800);

    const best = await call(bestTimeTool);
    expect(best.timeframe).toBe('24h');
    // The window is the cheapest predicted hour; without one, nothing beats now and the answer is send_now.
    // A wait is for that hour or a nearer one worth nearly as much; send_now names the window itself.
    if (!best.nextBestWindow) expect(best.decision.recommendation).toBe('send_now');
    else if (best.decision.recommendation === 'send_now') {
      expect(best.decision.nextBestAt).toBe(best.nextBestWindow.timestamp);
    } else {
      expect(Date.parse(best.decision.nextBestAt)).toBeLessThanOrEqual(
        Date.parse(best.nextBestWindow.timestamp),
      );
    }

    const gas = await call(currentGasTool);
    const estimate = await call(transactionCostTool, { gasLimit: 50_000, tier: 'low' });
    expect(estimate.gasPriceGwei).toBe(gas.low);
    expect(estimate.execution.gwei).toBeCloseTo(50_000 * gas.low, 6);
    const price = await call(ethPriceTool);
    expect(estimate.nativeUsd).toBe(price.usd);
    expect(price.sparkline_7d).toHaveLength(168);
    await client.close();
  });

  it('answers 50 concurrent calls from separate clients, each with its own input', async () => {
    const networks = ['mainnet', ...L2_NAMES] as const;
    const calls = Array.from({ length: 50 }, async (_, i) => {
      const client = await connect(`client-${i}`);
      try {
        if (i % 5 === 4) {
          const network = L2_NAMES[i % L2_NAMES.length]!;
          const result = await client.callTool({ name: 'get_l2_gas', arguments: { network } });
          const networksServed = (result.structuredContent as { networks: Array<{ id: string }> }).networks;
          return { expected: network, got: networksServed.map((n) => n.id).join(',') };
        }
        const gasLimit = 21_000 + i * 1_000;
        const network = networks[i % networks.length]!;
        const result = await client.callTool({
          name: 'estimate_transaction_cost',
          arguments: { gasLimit, network },
        });
        const data = result.structuredContent as {
          gasLimit: number;
          network: string;
          gasPriceGwei: number;
          execution: { gwei: number };
        };
        expect(data.execution.gwei).toBeCloseTo(gasLimit * data.gasPriceGwei, 6);
        return { expected: `${network}:${gasLimit}`, got: `${data.network}:${data.gasLimit}` };
      } finally {
        await client.close();
      }
    });
    const answers = await Promise.all(calls);
    expect(answers).toHaveLength(50);
    for (const { expected, got } of answers) expect(got).toBe(expected);
  });

  it('puts no secret of any upstream in a result or a log line', () => {
    expect(results.length).toBe(11);
    expectNoLeaks(up, ...results, ...lines);
  });
});
