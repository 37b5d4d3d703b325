import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { Redis } from '@upstash/redis/cloudflare';
import { describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import { setup, workerEnv } from './test-setup';

// The Worker in workerd, configured with Upstash: it reaches a real redis-server through the Upstash
// REST bridge that global-setup.ts started, where a Node instance of the app already wrote mainnet gas.
const env = {
  ...workerEnv,
  UPSTASH_REDIS_REST_URL: setup.upstash.url,
  UPSTASH_REDIS_REST_TOKEN: setup.upstash.token,
};
const KEY = 'gas-fee-api:shared:';
const redis = () =>
  new Redis({ url: setup.upstash.url, token: setup.upstash.token, automaticDeserialization: false });

async function get(path: string): Promise<Record<string, unknown>> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`https://gas.test${path}`), env, ctx);
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

interface Entry {
  value: Record<string, unknown>;
  readAt: number;
  failure: unknown;
}

describe('Worker reading through the shared Redis entry', () => {
  it('serves mainnet gas from the entry another instance wrote, without its own upstream read', async () => {
    const raw = await redis().get<string>(`${KEY}current-gas:mainnet`);
    const entry = JSON.parse(String(raw)) as Entry;
    // Mark the peer's reading (fresh, from a provider label no simulator has) so the answer shows its origin.
    const readAt = Date.now();
    const peer = {
      ...entry,
      readAt,
      value: { ...entry.value, source: 'peer-isolate', updatedAt: new Date(readAt).toISOString() },
    };
    await redis().set(`${KEY}current-gas:mainnet`, JSON.stringify(peer), { px: 60_000 });

    const body = await get('/api/gas');
    expect(body).toMatchObject({ source: 'peer-isolate', updatedAt: new Date(readAt).toISOString() });
    expect(body.blockNumber).toBe(entry.value.blockNumber);
    expect(String(body.citation)).toContain(`updated ${new Date(readAt).toISOString()}`);
  });

  it('reads a kind with no entry upstream once, shares it in Redis and lets go of the lease', async () => {
    expect(await redis().get(`${KEY}price:v2:ETH`)).toBeNull();
    const body = await get('/api/eth-price');
    expect(body).toMatchObject({ source: 'aggregator', priceSource: 'aggregator' });
    const entry = JSON.parse(String(await redis().get<string>(`${KEY}price:v2:ETH`))) as Entry;
    // The price is dated by its quote (CoinGecko's last_updated); the entry by when it was read.
    expect(entry.value).toMatchObject({ usd: body.usd, priceSource: 'aggregator' });
    expect(entry.value.quotedAt).toBe(Date.parse(String(body.updatedAt)));
    expect(entry.readAt).toBeGreaterThanOrEqual(Number(entry.value.quotedAt));
    expect(entry.failure).toBeNull();
    expect(await redis().exists(`${KEY}price:v2:ETH:lease`)).toBe(0);
    const pttl = await redis().pttl(`${KEY}price:v2:ETH`);
    expect(pttl).toBeGreaterThan(3_600_000);
  });
});
