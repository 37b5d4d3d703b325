import { z } from 'zod';
import type { L2NetworkId } from './l2/networks';
import { labelProviders, PROVIDER_NAME_PATTERN, type ProviderEntry } from './upstream/provider-label';

/** Built-in public JSON-RPC providers, in priority order; each can be replaced through the environment. */
export const DEFAULT_RPC_URLS = {
  mainnet: [
    'https://ethereum-rpc.publicnode.com',
    'https://eth.llamarpc.com',
    'https://eth.drpc.org',
    'https://1rpc.io/eth',
    'https://cloudflare-eth.com',
  ],
  arbitrum: [
    'https://arb1.arbitrum.io/rpc',
    'https://arbitrum-one-rpc.publicnode.com',
    'https://arbitrum.drpc.org',
  ],
  optimism: [
    'https://mainnet.optimism.io',
    'https://optimism-rpc.publicnode.com',
    'https://optimism.drpc.org',
  ],
  base: ['https://mainnet.base.org', 'https://base-rpc.publicnode.com', 'https://base.drpc.org'],
  polygon: ['https://polygon-rpc.com', 'https://polygon-bor-rpc.publicnode.com', 'https://polygon.drpc.org'],
} as const;

/** Default budget for one upstream attempt; the overall deadlines of each chain are derived from it. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 2500;

const httpUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const { protocol } = new URL(value);
      return protocol === 'http:' || protocol === 'https:';
    } catch {
      return false;
    }
  }, 'is not an http(s) URL')
  .transform((value) => value.replace(/\/+$/, ''));

/**
 * An http(s) URL with no user name or password: fetch refuses such a URL, so every call would fail
 * (RPC URLs may carry them: viem sends them as Basic auth). Keys go in their own variables.
 */
const plainHttpUrl = httpUrl.refine((value) => {
  const { username, password } = new URL(value);
  return username === '' && password === '';
}, 'must not carry a user name or password');

/** The service's public address: shown in every citation, so nothing but an origin and a path. */
const publicUrl = plainHttpUrl.refine((value) => {
  const { search, hash } = new URL(value);
  return search === '' && hash === '';
}, 'must be an origin and path, without a query or fragment (it is shown in every citation)');

/** A PostgreSQL connection URL (node-postgres and Neon both take one). */
const postgresUrl = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined))
  .refine((value) => {
    if (value === undefined) return true;
    try {
      const { protocol, hostname, searchParams } = new URL(value);
      // A Unix socket is named by a `host=` parameter instead (postgres:///gas?host=/var/run/postgresql).
      const host = hostname !== '' || (searchParams.get('host') ?? '') !== '';
      return (protocol === 'postgres:' || protocol === 'postgresql:') && host;
    } catch {
      return false;
    }
  }, 'is not a postgres:// or postgresql:// URL with a host (or a host= socket directory)');

/** One JSON-RPC provider: its URL (kept inside the process) and the label every response and log shows. */
export interface RpcEndpoint {
  label: string;
  url: string;
}

// `name=url`: a name holds no `:` or `/`, so the `=` of a URL's query is never taken for one.
const NAMED_ENTRY = /^([^=:/]*)=(.*)$/s;

/**
 * A comma-separated list of provider URLs, each optionally `name=url` (SPEC.md extension 20), labelled
 * in list order. The value itself is never echoed (it may hold an API key); a duplicate name is echoed,
 * since a name is public by design.
 */
const rpcList = (defaults: readonly string[]) =>
  z
    .string()
    .optional()
    .transform((raw, ctx): RpcEndpoint[] => {
      const items = raw === undefined || raw.trim() === '' ? [...defaults] : raw.split(',');
      const entries: ProviderEntry[] = [];
      const firstEntryNamed = new Map<string, number>();
      for (const [index, item] of items.entries()) {
        const named = NAMED_ENTRY.exec(item.trim());
        const name = named?.[1]?.trim();
        if (named && !PROVIDER_NAME_PATTERN.test(name ?? '')) {
          ctx.addIssue({
            code: 'custom',
            message: `entry ${index + 1}: a provider name is 1 to 32 letters, digits, - or _`,
          });
          return z.NEVER;
        }
        // A label is public, and SPEC extension 20 keeps `localhost` out of every label.
        if (name && /localhost/i.test(name)) {
          ctx.addIssue({
            code: 'custom',
            message: `entry ${index + 1}: a provider name cannot contain "localhost"`,
          });
          return z.NEVER;
        }
        const parsed = httpUrl.safeParse(named ? named[2] : item);
        if (!parsed.success) {
          ctx.addIssue({ code: 'custom', message: `entry ${index + 1} is not an http(s) URL` });
          return z.NEVER;
        }
        if (name) {
          const earlier = firstEntryNamed.get(name.toLowerCase());
          if (earlier !== undefined) {
            ctx.addIssue({
              code: 'custom',
              message: `entries ${earlier} and ${index + 1} have the same name "${name}"; names must be unique`,
            });
            return z.NEVER;
          }
          firstEntryNamed.set(name.toLowerCase(), index + 1);
        }
        entries.push({ name, url: parsed.data });
      }
      const labels = labelProviders(entries);
      return entries.map((entry, i) => ({ label: labels[i] as string, url: entry.url }));
    });

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined));

const optionalUrl = (url: z.ZodType<string, string> = plainHttpUrl) =>
  z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : undefined))
    .pipe(url.optional());

const urlOrDefault = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : fallback))
    .pipe(plainHttpUrl);

const EnvSchema = z.object({
  PORT: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : '8787'))
    .pipe(
      z
        .string()
        .regex(/^\d{1,5}$/, 'must be a whole number')
        .transform(Number),
    )
    .pipe(z.number().int().min(0).max(65535)),
  PUBLIC_BASE_URL: optionalUrl(publicUrl),
  DATABASE_URL: postgresUrl,
  DATA_DIR: optionalString.transform((value) => value ?? '.data'),
  // Kept in its normal form: @upstash/redis refuses an upper-case scheme or a host after extra
  // slashes, which the URL parser takes, on every call rather than at start-up.
  UPSTASH_REDIS_REST_URL: optionalUrl(
    plainHttpUrl.transform((value) => new URL(value).href.replace(/\/$/, '')),
  ),
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  MAINNET_RPC_URLS: rpcList(DEFAULT_RPC_URLS.mainnet),
  ARBITRUM_RPC_URLS: rpcList(DEFAULT_RPC_URLS.arbitrum),
  OPTIMISM_RPC_URLS: rpcList(DEFAULT_RPC_URLS.optimism),
  BASE_RPC_URLS: rpcList(DEFAULT_RPC_URLS.base),
  POLYGON_RPC_URLS: rpcList(DEFAULT_RPC_URLS.polygon),
  ETHERSCAN_API_URL: urlOrDefault('https://api.etherscan.io/v2/api'),
  ETHERSCAN_API_KEY: optionalString,
  COINGECKO_API_URL: urlOrDefault('https://api.coingecko.com/api/v3'),
  COINBASE_API_URL: urlOrDefault('https://api.coinbase.com'),
  KRAKEN_API_URL: urlOrDefault('https://api.kraken.com'),
  UPSTREAM_TIMEOUT_MS: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : String(DEFAULT_UPSTREAM_TIMEOUT_MS)))
    .pipe(z.string().regex(/^\d+$/, 'must be a whole number of milliseconds').transform(Number))
    .pipe(z.number().int().min(100).max(60_000)),
});

/** The typed configuration every part of the app receives; nothing below the hosts reads the environment. */
export interface Config {
  port: number;
  publicBaseUrl: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  upstash: { url: string; token: string } | undefined;
  /** Mainnet JSON-RPC providers in priority order, each with its public label. */
  mainnetRpc: RpcEndpoint[];
  l2Rpc: Record<L2NetworkId, RpcEndpoint[]>;
  etherscan: { url: string; apiKey: string | undefined };
  coingeckoUrl: string;
  coinbaseUrl: string;
  krakenUrl: string;
  upstreamTimeoutMs: number;
}

/** Raised when an environment variable is invalid; the message names the variable, never its value. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once into a Config, or throws a ConfigError naming every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (Boolean(e.UPSTASH_REDIS_REST_URL) !== Boolean(e.UPSTASH_REDIS_REST_TOKEN)) {
    throw new ConfigError(
      'Invalid configuration:\n  UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together',
    );
  }
  return {
    port: e.PORT,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    upstash:
      e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN
        ? { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN }
        : undefined,
    mainnetRpc: e.MAINNET_RPC_URLS,
    l2Rpc: {
      arbitrum: e.ARBITRUM_RPC_URLS,
      optimism: e.OPTIMISM_RPC_URLS,
      base: e.BASE_RPC_URLS,
      polygon: e.POLYGON_RPC_URLS,
    },
    etherscan: { url: e.ETHERSCAN_API_URL, apiKey: e.ETHERSCAN_API_KEY },
    coingeckoUrl: e.COINGECKO_API_URL,
    coinbaseUrl: e.COINBASE_API_URL,
    krakenUrl: e.KRAKEN_API_URL,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
  };
}
