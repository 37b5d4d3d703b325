import { formatGwei } from 'viem';
import { ChainModel, type ChainView, computeRewardPercentiles, HEALTHY_VIEW } from './chain-model';
import { getChainProfile, type MainnetRegime } from './chain-profiles';
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

/** Etherscan API v2: `GET /v2/api?chainid=1&module=gastracker&action=gasoracle` (route `gasoracle`). */
export interface EtherscanSim extends Sim {
  /**
   * Replaces fields of the oracle answer (numbers are gwei; null leaves the field out); undefined
   * restores the live values.
   */
  setOracle(result: Partial<Record<keyof GasOracleResult, string | number | null>> | undefined): void;
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
        if (q.get('module') !== 'gastracker') return notOk('Error! Missing Or invalid Module name');
        if (q.get('action') !== 'gasoracle') return notOk('Error! Missing Or invalid Action name');
        const apiError = faults.take('rpc-error', keys);
        if (apiError) return notOk(apiError.message ?? 'Max rate limit reached');
        const lag = faults.take('lag', keys);
        const stale = faults.take('stale', keys);
        const absurd = faults.take('absurd', keys);
        // Etherscan has no timestamp: a stale backend shows as a LastBlock that many 12 s slots back.
        const lagBlocks =
          (lag ? (lag.blocks ?? 10) : 0) + (stale ? Math.round((stale.seconds ?? 600) / 12) : 0);
        const result = { ...computeOracle(model, { ...HEALTHY_VIEW, lagBlocks }) };
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
    fault: (mode, faultOptions) => server.fault(mode, faultOptions),
    async reset() {
      override = undefined;
      apiKey = initialKey;
      await server.reset();
    },
    close: () => server.close(),
    setOracle(result) {
      override = result;
    },
    setApiKey(key) {
      apiKey = key;
    },
  };
}
