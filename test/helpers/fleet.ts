// App instances as a fleet of Worker isolates would run them: each with its own caches, provider health
// and shared-read state, all reading through one shared store. Used by the fleet tests and `npm run bench
// -- fleet`, with a fetch that counts upstream reads per data kind.
import { createApp } from '../../functions/app';
import type { AppDeps } from '../../lib/deps';
import { createLastGoodStore } from '../../lib/store/create-last-good';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { createTestDeps, type TestDeps } from './deps';

/** The upstream data kinds the service reads: mainnet gas, the two prices and each L2 network. */
export const READ_KINDS = [
  'mainnet',
  'price:ETH',
  'price:POL',
  'l2:arbitrum',
  'l2:optimism',
  'l2:base',
  'l2:polygon',
] as const;
export type ReadKind = (typeof READ_KINDS)[number];

/** Upstream reads per kind: one `eth_feeHistory` or Etherscan call, one `eth_gasPrice`, one price request. */
export type ReadCounts = Record<ReadKind, number>;

export const emptyCounts = (): ReadCounts =>
  Object.fromEntries(READ_KINDS.map((kind) => [kind, 0])) as ReadCounts;

/**
 * Wraps `fetch` so that every upstream read is counted under its kind, told apart by the upstream's
 * origin (from the simulators' environment) and, for JSON-RPC, the method asked.
 */
export function countingFetch(env: Record<string, string>, counts: ReadCounts, inner: typeof fetch = fetch) {
  const origins = new Map<string, string>();
  const add = (variable: string, label: string) => {
    for (const url of (env[variable] ?? '').split(',').filter(Boolean))
      origins.set(new URL(url).origin, label);
  };
  add('MAINNET_RPC_URLS', 'mainnet');
  add('ETHERSCAN_API_URL', 'etherscan');
  for (const network of ['arbitrum', 'optimism', 'base', 'polygon'])
    add(`${network.toUpperCase()}_RPC_URLS`, `l2:${network}`);
  for (const source of ['COINGECKO', 'COINBASE', 'KRAKEN']) add(`${source}_API_URL`, 'price');

  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const owner = origins.get(url.origin);
    const body = typeof init?.body === 'string' ? init.body : '';
    let kind: ReadKind | undefined;
    if (owner === 'mainnet' && body.includes('"eth_feeHistory"')) kind = 'mainnet';
    // One read of the explorer is its gas oracle (the proxy's block time comes with it).
    else if (owner === 'etherscan' && url.searchParams.get('action') === 'gasoracle') kind = 'mainnet';
    else if (owner?.startsWith('l2:') && body.includes('"eth_gasPrice"')) kind = owner as ReadKind;
    else if (owner === 'price') kind = /polygon|POL/i.test(url.href) ? 'price:POL' : 'price:ETH';
    if (kind) counts[kind] += 1;
    return inner(input, init);
  }) as typeof fetch;
}

export interface FleetInstance {
  deps: TestDeps;
  request(path: string): Promise<Response>;
}

/**
 * Creates one app instance. `shared`: through the Upstash store of `env` (the design of this
 * service); otherwise the per-isolate design, where each instance reads every upstream itself.
 */
export function createFleetInstance(
  env: Record<string, string>,
  options: { shared: boolean; fetch?: typeof fetch; now?: () => number; overrides?: Partial<AppDeps> },
): FleetInstance {
  const now = options.now ?? Date.now;
  const deps = createTestDeps(env, {
    now,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...options.overrides,
  });
  deps.lastGood = options.shared ? createLastGoodStore(deps.config) : createMemoryLastGoodStore(now);
  const app = createApp(deps);
  return { deps, request: async (path) => app.request(path) };
}
