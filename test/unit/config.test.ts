import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_RPC_URLS, DEFAULT_UPSTREAM_TIMEOUT_MS, parseConfig } from '../../lib/config';

describe('parseConfig', () => {
  it('falls back to the built-in public providers and documented defaults', () => {
    const config = parseConfig({});
    expect(config.port).toBe(8787);
    expect(config.dataDir).toBe('.data');
    expect(config.mainnetRpc.map((p) => p.url)).toEqual(DEFAULT_RPC_URLS.mainnet);
    expect(config.l2Rpc.polygon.map((p) => p.url)).toEqual(DEFAULT_RPC_URLS.polygon);
    expect(config.etherscan).toEqual({ url: 'https://api.etherscan.io/v2/api', apiKey: undefined });
    expect(config.upstreamTimeoutMs).toBe(DEFAULT_UPSTREAM_TIMEOUT_MS);
    expect(config.upstash).toBeUndefined();
    expect(config.databaseUrl).toBeUndefined();
  });

  it('reads comma-separated provider lists in priority order', () => {
    const config = parseConfig({
      MAINNET_RPC_URLS: ' https://a.example/v3/KEY , http://127.0.0.1:9/ ',
      PORT: '9000',
    });
    expect(config.mainnetRpc).toEqual([
      { label: 'a', url: 'https://a.example/v3/KEY' },
      { label: 'rpc-2', url: 'http://127.0.0.1:9' },
    ]);
    expect(config.port).toBe(9000);
  });

  it('stops with a message naming the variable, never echoing a URL that may hold a key', () => {
    const attempt = () => parseConfig({ MAINNET_RPC_URLS: 'https://ok.example,not a url secret-key-123' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/MAINNET_RPC_URLS: entry 2 is not an http\(s\) URL/);
    expect(attempt).not.toThrow(/secret-key-123/);
  });

  it.each([
    ['PORT', 'abc', /PORT: must be a whole number/],
    ['PORT', '70000', /PORT/],
    ['UPSTREAM_TIMEOUT_MS', '2s', /UPSTREAM_TIMEOUT_MS/],
    ['COINGECKO_API_URL', 'ftp://x', /COINGECKO_API_URL/],
    ['ARBITRUM_RPC_URLS', 'x', /ARBITRUM_RPC_URLS/],
  ])('rejects %s=%s', (name, value, message) => {
    expect(() => parseConfig({ [name]: value })).toThrow(message);
  });

  it('requires the Upstash URL and token together', () => {
    expect(() => parseConfig({ UPSTASH_REDIS_REST_URL: 'https://r.example' })).toThrow(
      /UPSTASH_REDIS_REST_TOKEN/,
    );
    const config = parseConfig({
      UPSTASH_REDIS_REST_URL: 'https://r.example',
      UPSTASH_REDIS_REST_TOKEN: 't',
    });
    expect(config.upstash).toEqual({ url: 'https://r.example', token: 't' });
  });
});
