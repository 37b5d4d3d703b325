import type { MainnetRegime } from './chain-profiles';
import { type CoinbaseSim, startCoinbaseSim } from './coinbase-sim';
import { type CoinGeckoSim, startCoinGeckoSim } from './coingecko-sim';
import { type EtherscanSim, startEtherscanSim } from './etherscan-sim';
import { type KrakenSim, startKrakenSim } from './kraken-sim';
import { type RpcSim, startRpcSim } from './rpc-sim';
import type { Sim } from './sim';

export type { FixedFeeHistory } from './chain-model';
export { type MainnetRegime, SUB_GWEI_2026 } from './chain-profiles';
export type { CoinbaseSim } from './coinbase-sim';
export type { CoinGeckoSim } from './coingecko-sim';
export type { EtherscanSim, GasOracleResult } from './etherscan-sim';
export { GAS_PRICE_ORACLE } from './gas-price-oracle';
export type { KrakenSim } from './kraken-sim';
export { expectNoLeaks, findLeaks } from './leaks';
export type { Asset, Quote, QuoteOverride } from './price-book';
export type { ChainName, RpcSim } from './rpc-sim';
export type { FaultMode, FaultOptions, HttpSim, RequestCounters, RequestRecord, Sim } from './sim';

export type L2Name = 'arbitrum' | 'optimism' | 'base' | 'polygon';
export const L2_NAMES: readonly L2Name[] = ['arbitrum', 'optimism', 'base', 'polygon'];

/** Every simulated upstream of the app, started together. */
export interface Upstreams {
  /** Three mainnet providers, in priority order. */
  mainnet: RpcSim[];
  /** Two providers per L2 network, in priority order. */
  l2: Record<L2Name, RpcSim[]>;
  etherscan: EtherscanSim;
  coingecko: CoinGeckoSim;
  coinbase: CoinbaseSim;
  kraken: KrakenSim;
  /** Every simulator, in port order. */
  all: Sim[];
  /** The fake API keys in the RPC URLs and the Etherscan key: none may ever appear in an app answer or log. */
  secrets: string[];
  /** Environment variables (DESIGN.md names) pointing the app at these servers. */
  env: Record<string, string>;
  /** Clears faults, overrides and counters everywhere; listens again where `refuse` was set. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export interface StartUpstreamsOptions {
  /** Clock in epoch milliseconds (default Date.now): chain heads and price timestamps follow it. */
  now?: () => number;
  /** Fixed ports: the 15 servers take basePort, basePort + 1, ... in `all` order; default: free ports. */
  basePort?: number;
  /** API key the Etherscan simulator requires (and `env` carries); null accepts any or none. */
  etherscanApiKey?: string | null;
  /**
   * Mainnet's fee level, on every mainnet provider and the explorer: `late-2023` (default, about 30
   * gwei) or `sub-gwei-2026` (today's chain: a base fee of about 0.05 gwei, tips of 0.0001-0.05 gwei).
   */
  mainnetRegime?: MainnetRegime;
}

const MAINNET_PROVIDERS = 3;
const L2_PROVIDERS = 2;
export const ETHERSCAN_SIM_KEY = 'sim-secret-etherscan-key';

/** Starts every simulator on 127.0.0.1 (in parallel, a few milliseconds) and builds the app environment. */
export async function startUpstreams(options: StartUpstreamsOptions = {}): Promise<Upstreams> {
  const now = options.now ?? Date.now;
  let next = 0;
  const port = () => (options.basePort === undefined ? 0 : options.basePort + next++);
  let keyIndex = 0;
  const secret = () => `sim-secret-key-${String(++keyIndex).padStart(2, '0')}`;

  const regime = options.mainnetRegime;
  const rpc = (chain: RpcSim['chain'], count: number) =>
    Array.from({ length: count }, () => startRpcSim(chain, secret(), { now, port: port(), regime }));
  const etherscanKey =
    options.etherscanApiKey === null ? undefined : (options.etherscanApiKey ?? ETHERSCAN_SIM_KEY);

  const mainnetStarts = rpc('mainnet', MAINNET_PROVIDERS);
  const l2Starts = L2_NAMES.map((name) => rpc(name, L2_PROVIDERS));
  const etherscanStart = startEtherscanSim({
    now,
    port: port(),
    ...(etherscanKey ? { apiKey: etherscanKey } : {}),
    regime,
  });
  const coingeckoStart = startCoinGeckoSim({ now, port: port() });
  const coinbaseStart = startCoinbaseSim({ now, port: port() });
  const krakenStart = startKrakenSim({ now, port: port() });

  const started = await Promise.allSettled([
    ...mainnetStarts,
    ...l2Starts.flat(),
    etherscanStart,
    coingeckoStart,
    coinbaseStart,
    krakenStart,
  ]);
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    // Close whatever did start so a failed start leaves no listening port behind.
    await Promise.all(
      started.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)),
    );
    throw (failed as PromiseRejectedResult).reason;
  }

  const mainnet = await Promise.all(mainnetStarts);
  const l2Lists = await Promise.all(l2Starts.map((starts) => Promise.all(starts)));
  const l2 = Object.fromEntries(L2_NAMES.map((name, i) => [name, l2Lists[i]!])) as Record<L2Name, RpcSim[]>;
  const [etherscan, coingecko, coinbase, kraken] = await Promise.all([
    etherscanStart,
    coingeckoStart,
    coinbaseStart,
    krakenStart,
  ]);
  const rpcSims = [...mainnet, ...L2_NAMES.flatMap((name) => l2[name])];
  const all: Sim[] = [...rpcSims, etherscan, coingecko, coinbase, kraken];

  const urls = (sims: RpcSim[]) => sims.map((sim) => sim.url).join(',');
  const env: Record<string, string> = {
    MAINNET_RPC_URLS: urls(mainnet),
    ARBITRUM_RPC_URLS: urls(l2.arbitrum),
    OPTIMISM_RPC_URLS: urls(l2.optimism),
    BASE_RPC_URLS: urls(l2.base),
    POLYGON_RPC_URLS: urls(l2.polygon),
    ETHERSCAN_API_URL: etherscan.url,
    COINGECKO_API_URL: coingecko.url,
    COINBASE_API_URL: coinbase.url,
    KRAKEN_API_URL: kraken.url,
    ...(etherscanKey ? { ETHERSCAN_API_KEY: etherscanKey } : {}),
  };

  return {
    mainnet,
    l2,
    etherscan,
    coingecko,
    coinbase,
    kraken,
    all,
    secrets: [...rpcSims.map((sim) => sim.secret), ...(etherscanKey ? [etherscanKey] : [])],
    env,
    async reset() {
      await Promise.all(all.map((sim) => sim.reset()));
    },
    async close() {
      await Promise.all(all.map((sim) => sim.close()));
    },
  };
}
