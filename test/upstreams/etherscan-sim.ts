import { formatGwei, toHex } from 'viem';
import { ChainModel, type ChainView, computeRewardPercentiles, HEALTHY_VIEW } from './chain-model';
import { getChainProfile, type MainnetRegime } from './chain-profiles';
import type { FaultSet } from './faults';
import { answerRpcCall, RpcError } from './rpc-methods';
import type { Sim } from './sim';
import { jsonReply, type SimReply, type SimRequest, startSimServer } from './sim-server';

/** The `result` of Etherscan's gas oracle: gwei values as decimal strings. */
export interface GasOracleResult {
  LastBlock: string;
  SafeGasPrice: string;
  ProposeGasPrice: string;
  FastGasPrice: string;
  suggestBaseFee: string;
  gasUsedRatio: string;
}

/** Fields of the proxy's block a test may replace: numbers are sent as hex quantities, strings as given. */
export type ProxyBlockFields = Partial<Record<'number' | 'timestamp', string | number | null>>;

/**
 * Etherscan API v2, `GET /v2/api?chainid=1&...`: the gas oracle (`module=gastracker&action=gasoracle`,
 * route `gasoracle`) and the Geth proxy's `module=proxy&action=eth_getBlockByNumber` (route
 * `eth_getBlockByNumber`), both on the same simulated mainnet the RPC providers serve. Faults are
 * keyed by route, so `methods` can aim one at either call. `rpc-error` is the rate limit, in each
 * call's real shape: `{"status":"0","message":"NOTOK","result":<message>}` from the oracle,
 * `{"jsonrpc":"2.0","id":1,"result":<message>}` from the proxy.
 */
export interface EtherscanSim extends Sim {
  /** The simulated mainnet both calls answer from, for tests that compute expected values. */
  readonly model: ChainModel;
  /**
   * Replaces fields of the oracle answer (numbers are gwei; null leaves the field out); undefined
   * restores the live values.
   */
  setOracle(result: Partial<Record<keyof GasOracleResult, string | number | null>> | undefined): void;
  /** Replaces fields of every block the proxy answers (null leaves the field out); undefined restores them. */
  setBlock(fields: ProxyBlockFields | undefined): void;
  /** The API key requests must carry; undefined accepts any or none. */
  setApiKey(key: string | undefined): void;
}

function notOk(result: string, status = 200): SimReply {
  return jsonReply(status, { status: '0', message: 'NOTOK', result });
}

/**
 * Live oracle values from the same simulated mainnet the RPC providers serve: suggestBaseFee is the next
 * block's base fee; Safe / Propose / Fast add the mean 25th / 50th / 75th percentile tip of the last five
 * blocks (Etherscan does not publish its method); gasUsedRatio lists those blocks' ratios.
 */
function computeOracle(model: ChainModel, view: ChainView): GasOracleResult {
  const head = model.headNumber(view);
  const percentiles = [25, 50, 75];
  const sums = [0n, 0n, 0n];
  const ratios: number[] = [];
  for (let n = head - 4; n <= head; n += 1) {
    const fees = model.fees(n, view);
    computeRewardPercentiles(fees.tips, percentiles).forEach((tip, i) => {
      sums[i] = (sums[i] ?? 0n) + tip;
    });
    ratios.push(fees.gasUsedRatio);
  }
  const base = model.nextBaseFee(view);
  const tier = (i: number) => formatGwei(base + (sums[i] ?? 0n) / 5n);
  return {
    LastBlock: String(head),
    SafeGasPrice: tier(0),
    ProposeGasPrice: tier(1),
    FastGasPrice: tier(2),
    suggestBaseFee: formatGwei(base),
    gasUsedRatio: ratios.map(String).join(','),
  };
}

/**
 * How many blocks behind the chain a backend is under the `lag` and `stale` faults: Etherscan sends no
 * time of its own, so a stale backend shows as one stuck that many 12-s slots back.
 */
function lagOf(faults: FaultSet, keys: string[]): number {
  const lag = faults.take('lag', keys);
  const stale = faults.take('stale', keys);
  return (lag ? (lag.blocks ?? 10) : 0) + (stale ? Math.round((stale.seconds ?? 600) / 12) : 0);
}

/** Starts the Etherscan simulator, on the same mainnet as the RPC providers; its `url` is `${origin}/v2/api`. */
export async function startEtherscanSim(options: {
  now: () => number;
  port?: number;
  apiKey?: string;
  regime?: MainnetRegime;
}): Promise<EtherscanSim> {
  const model = new ChainModel(getChainProfile('mainnet', options.regime), options.now);
  let apiKey = options.apiKey;
  let override: Partial<Record<keyof GasOracleResult, string | number | null>> | undefined;
  let blockOverride: ProxyBlockFields | undefined;

  function answerOracle(faults: FaultSet, keys: string[]): SimReply {
    const absurd = faults.take('absurd', keys);
    const result = { ...computeOracle(model, { ...HEALTHY_VIEW, lagBlocks: lagOf(faults, keys) }) };
    if (absurd) {
      const gwei = String(absurd.value ?? 10_000_000);
      Object.assign(result, {
        SafeGasPrice: gwei,
        ProposeGasPrice: gwei,
        FastGasPrice: gwei,
        suggestBaseFee: gwei,
      });
    }
    for (const [key, value] of Object.entries(override ?? {})) {
      if (value === null) delete (result as Partial<GasOracleResult>)[key as keyof GasOracleResult];
      else (result as Record<string, string>)[key] = String(value);
    }
    return jsonReply(200, { status: '1', message: 'OK', result });
  }

  /**
   * The proxy passes the call to its node and sends the node's JSON-RPC answer on: the block, `null`
   * for one the node does not have yet (its head lags under `lag` / `stale`), or the node's error.
   */
  function answerBlock(query: URLSearchParams, faults: FaultSet, keys: string[]): SimReply {
    const view = { ...HEALTHY_VIEW, lagBlocks: lagOf(faults, keys) };
    const params = [query.get('tag') ?? 'latest', query.get('boolean') === 'true'];
    let result: unknown;
    try {
      result = answerRpcCall('eth_getBlockByNumber', params, { model, view, chainId: 1 });
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      return jsonReply(200, { jsonrpc: '2.0', id: 1, error: { code: error.code, message: error.message } });
    }
    if (result !== null && blockOverride) {
      const block = result as Record<string, unknown>;
      for (const [key, value] of Object.entries(blockOverride)) {
        if (value === null) delete block[key];
        else block[key] = typeof value === 'number' ? toHex(value) : value;
      }
    }
    return jsonReply(200, { jsonrpc: '2.0', id: 1, result });
  }

  const server = await startSimServer(
    {
      keysOf: (request: SimRequest) => [request.query.get('action') ?? 'unknown'],
      answer(request, faults) {
        if (request.path !== '/v2/api')
          return jsonReply(404, { status: '0', message: 'NOTOK', result: 'Not found' });
        const q = request.query;
        const keys = [q.get('action') ?? 'unknown'];
        if (apiKey !== undefined && q.get('apikey') !== apiKey) return notOk('Invalid API Key');
        if (q.get('chainid') !== '1') {
          return notOk(
            'Missing or unsupported chainid parameter (required for v2 api), please see https://api.etherscan.io/v2/chainlist for the list of supported chainids',
          );
        }
        const route = `${q.get('module')}/${q.get('action')}`;
        if (route !== 'gastracker/gasoracle' && route !== 'proxy/eth_getBlockByNumber') {
          return ['gastracker', 'proxy'].includes(q.get('module') ?? '')
            ? notOk('Error! Missing Or invalid Action name')
            : notOk('Error! Missing Or invalid Module name');
        }
        // A rate limit: the gas oracle's in the API's own shape; the proxy's as a JSON-RPC envelope
        // whose result is the message, as Etherscan sends it (paradigmxyz/reth issue 17140).
        const apiError = faults.take('rpc-error', keys);
        if (apiError && route === 'proxy/eth_getBlockByNumber') {
          const result = apiError.message ?? 'Max calls per sec rate limit reached (5/sec)';
          return jsonReply(200, { jsonrpc: '2.0', id: 1, result });
        }
        if (apiError) return notOk(apiError.message ?? 'Max rate limit reached');
        return route === 'gastracker/gasoracle' ? answerOracle(faults, keys) : answerBlock(q, faults, keys);
      },
      errorReply: (status) =>
        status === 429 ? notOk('Max rate limit reached', 429) : notOk('Internal server error', 500),
    },
    options.port,
  );
  const initialKey = options.apiKey;
  return {
    name: 'etherscan',
    url: `${server.origin}/v2/api`,
    origin: server.origin,
    port: server.port,
    requests: server.requests,
    model,
    fault: (mode, faultOptions) => server.fault(mode, faultOptions),
    async reset() {
      override = undefined;
      blockOverride = undefined;
      apiKey = initialKey;
      await server.reset();
    },
    close: () => server.close(),
    setOracle(result) {
      override = result;
    },
    setBlock(fields) {
      blockOverride = fields;
    },
    setApiKey(key) {
      apiKey = key;
    },
  };
}
