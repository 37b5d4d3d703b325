import { Redis } from '@upstash/redis';
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
    // fetch refuses a URL with user info: every price read would fail, quietly, at run time.
    ['COINGECKO_API_URL', 'https://user:pw-secret@api.example', /COINGECKO_API_URL: must not carry/],
    ['ETHERSCAN_API_URL', 'https://user@api.example/v2/api', /ETHERSCAN_API_URL: must not carry/],
    // Shown in every citation.
    ['PUBLIC_BASE_URL', 'https://u:pw-secret@gas.example', /PUBLIC_BASE_URL: must not carry/],
    ['PUBLIC_BASE_URL', 'https://gas.example/?key=pw-secret', /PUBLIC_BASE_URL: must be an origin/],
    ['DATABASE_URL', 'not a url pw-secret', /DATABASE_URL: is not a postgres/],
    ['DATABASE_URL', 'mysql://root:pw-secret@db.example/gas', /DATABASE_URL: is not a postgres/],
    ['MAINNET_RPC_URLS', 'localhost=http://10.0.0.5:8545', /MAINNET_RPC_URLS: entry 1: .*"localhost"/],
    ['MAINNET_RPC_URLS', 'my-Localhost=http://10.0.0.5:8545', /MAINNET_RPC_URLS: entry 1: .*"localhost"/],
  ])('rejects %s=%s', (name, value, message) => {
    const attempt = () => parseConfig({ [name]: value });
    expect(attempt).toThrow(message);
    expect(attempt).not.toThrow(/pw-secret/);
  });

  it('takes postgres and postgresql connection URLs, and RPC URLs with user info (sent as Basic auth)', () => {
    for (const url of [
      'postgres://u:p@db.example:5432/gas',
      'postgresql://db.example/gas',
      'postgres://u:p@ep-x-123.eu-central-1.aws.neon.tech/gas?sslmode=require&channel_binding=require',
      // A Unix socket, as node-postgres takes it.
      'postgres:///gas?host=/var/run/postgresql',
    ]) {
      expect(parseConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
    expect(parseConfig({ MAINNET_RPC_URLS: 'https://u:p@rpc.example' }).mainnetRpc).toHaveLength(1);
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

  it.each(['HTTPS://R.Example', 'https:///r.example', 'https://r.example/'])(
    'keeps the Upstash URL %s in the normal form its client takes (it refused such spellings on every call)',
    (url) => {
      const config = parseConfig({ UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: 't' });
      expect(config.upstash?.url).toBe('https://r.example');
      expect(() => new Redis({ url: config.upstash?.url, token: 't' })).not.toThrow();
    },
  );
});
