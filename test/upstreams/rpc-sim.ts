import { type BlobSupport, ChainModel, type ChainView, type FixedFeeHistory } from './chain-model';
import {
  type ChainProfile,
  getChainProfile,
  type MainnetRegime,
  type OperatorFeeState,
} from './chain-profiles';
import type { FaultSet } from './faults';
import { answerRpcCall, RpcError } from './rpc-methods';
import type { Sim } from './sim';
import { jsonReply, type SimReply, type SimRequest, type SimRoutes, startSimServer } from './sim-server';

export type ChainName = ChainProfile['name'];

/** A simulated JSON-RPC provider of one chain. */
export interface RpcSim extends Sim {
  readonly chain: ChainName;
  readonly chainId: number;
  /** The fake API key in this provider's URL path. */
  readonly secret: string;
  /** This provider's chain state, for tests that compute expected values. */
  readonly model: ChainModel;
  /** Freezes the head at this block (timestamp in seconds, default now); undefined lets it advance again. */
  setHead(head: { number: number; timestamp?: number } | undefined): void;
  /** Base fees per block, cycled by block number (each block's gas-used ratio follows from the next). */
  setBaseFees(wei: bigint[] | undefined): void;
  /** Tips of every block (one list) or per block (a list of lists, cycled by block number). */
  setTips(tips: bigint[] | bigint[][] | undefined): void;
  /** An exact eth_feeHistory answer, whatever the request asks. */
  setFeeHistory(history: FixedFeeHistory | undefined): void;
  setGasPrice(wei: bigint | undefined): void;
  setMaxPriorityFee(wei: bigint | undefined): void;
  /** OP Stack only: the L1 base fee the GasPriceOracle holds. */
  setL1BaseFee(wei: bigint | undefined): void;
  /** OP Stack only: the exact getL1Fee answer. */
  setL1Fee(wei: bigint | undefined): void;
  /** OP Stack only: the operator fee fork and parameters getOperatorFee and L1Block answer from. */
  setOperatorFee(fee: OperatorFeeState | undefined): void;
  /** How much of EIP-4844 this node speaks (see ChainOverrides.blobSupport); undefined: all of it. */
  setBlobSupport(mode: BlobSupport | undefined): void;
  /** Arbitrum only: the exact gasEstimateL1Component gas estimate. */
  setL1GasEstimate(gas: bigint | undefined): void;
}

interface RpcCall {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const DEFAULT_ABSURD_WEI = 10n ** 16n; // 1e7 gwei
/** dRPC's answer to a batch over its free tier's limit, as its users have logged it (HTTP 500, code 31). */
const batchLimitText = (max: number) =>
  `Batch of more than ${max} requests are not allowed on free tier, to use this feature register paid account at drpc.org`;

function parseCalls(body: string): RpcCall | RpcCall[] | undefined {
  try {
    return JSON.parse(body) as RpcCall | RpcCall[];
  } catch {
    return undefined;
  }
}

function rpcError(id: unknown, code: number, message: string, data?: unknown) {
  return {
    jsonrpc: '2.0',
    id: id ?? null,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  };
}

function createRpcRoutes(model: ChainModel, secret: string): SimRoutes {
  const wrongChainDefault = model.profile.chainId === 1 ? 11_155_111 : 1;

  function answerOne(call: RpcCall, faults: FaultSet): unknown {
    if (typeof call !== 'object' || call === null || typeof call.method !== 'string') {
      return rpcError(call?.id, -32600, 'invalid request');
    }
    const method = call.method;
    const keys = [method];
    const failure = faults.take('rpc-error', keys);
    if (failure) return rpcError(call.id, failure.code ?? -32005, failure.message ?? 'limit exceeded');
    const isChainId = method === 'eth_chainId' || method === 'net_version';
    const wrongChain = isChainId ? faults.take('wrong-chain', keys) : undefined;
    const lag = faults.take('lag', keys);
    const stale = faults.take('stale', keys);
    const absurd = faults.take('absurd', keys);
    const view: ChainView = {
      lagBlocks: lag ? (lag.blocks ?? 10) : 0,
      staleSeconds: stale ? (stale.seconds ?? 600) : 0,
      absurd: absurd ? BigInt(absurd.value ?? DEFAULT_ABSURD_WEI) : undefined,
    };
    const chainId = wrongChain ? (wrongChain.chainId ?? wrongChainDefault) : model.profile.chainId;
    try {
      const params = Array.isArray(call.params) ? call.params : [];
      return {
        jsonrpc: '2.0',
        id: call.id ?? null,
        result: answerRpcCall(method, params, { model, view, chainId }),
      };
    } catch (error) {
      if (error instanceof RpcError) return rpcError(call.id, error.code, error.message, error.data);
      throw error;
    }
  }

  return {
    keysOf(request: SimRequest) {
      const calls = parseCalls(request.body);
      const list = Array.isArray(calls) ? calls : calls ? [calls] : [];
      return list.flatMap((call) => (typeof call?.method === 'string' ? [call.method] : []));
    },
    answer(request, faults): SimReply {
      if (request.path !== `/v3/${secret}`)
        return jsonReply(401, rpcError(null, -32002, 'invalid project id'));
      if (request.method !== 'POST') return jsonReply(405, rpcError(null, -32600, 'method not allowed'));
      const calls = parseCalls(request.body);
      if (calls === undefined) return jsonReply(200, rpcError(null, -32700, 'parse error'));
      if (!Array.isArray(calls)) return jsonReply(200, answerOne(calls, faults));
      if (calls.length === 0) return jsonReply(200, rpcError(null, -32600, 'empty batch'));
      const methods = calls.flatMap((call) => (typeof call?.method === 'string' ? [call.method] : []));
      if (faults.take('no-batch', methods)) {
        return jsonReply(200, rpcError(null, -32600, 'batch requests are not supported'));
      }
      const limit = faults.take('batch-limit', methods);
      const max = limit?.max ?? 3;
      if (limit && calls.length > max) return jsonReply(500, rpcError(null, 31, batchLimitText(max)));
      return jsonReply(
        200,
        calls.map((call) => answerOne(call, faults)),
      );
    },
    errorReply(status) {
      // Infura's rate-limit answer; a 500 as node gateways send it, still JSON-RPC shaped.
      return status === 429
        ? jsonReply(429, rpcError(null, -32005, 'project ID request rate exceeded', { see: 'rate limits' }))
        : jsonReply(500, rpcError(null, -32603, 'internal error'));
    },
  };
}

/** Starts one JSON-RPC provider of `chain` whose URL path carries `secret`; `regime` sets mainnet's fee level. */
export async function startRpcSim(
  chain: ChainName,
  secret: string,
  options: { now: () => number; port?: number; regime?: MainnetRegime },
): Promise<RpcSim> {
  const model = new ChainModel(getChainProfile(chain, options.regime), options.now);
  const server = await startSimServer(createRpcRoutes(model, secret), options.port);
  const set = <K extends keyof ChainModel['overrides']>(key: K, value: ChainModel['overrides'][K]) => {
    if (value === undefined) delete model.overrides[key];
    else model.overrides[key] = value;
  };
  return {
    name: `${chain}-rpc`,
    chain,
    chainId: model.profile.chainId,
    secret,
    model,
    url: `${server.origin}/v3/${secret}`,
    origin: server.origin,
    port: server.port,
    requests: server.requests,
    fault: (mode, faultOptions) => server.fault(mode, faultOptions),
    async reset() {
      model.overrides = {};
      await server.reset();
    },
    close: () => server.close(),
    setHead: (head) =>
      set(
        'head',
        head && { number: head.number, timestamp: head.timestamp ?? Math.floor(options.now() / 1000) },
      ),
    setBaseFees: (wei) => set('baseFees', wei),
    setTips: (tips) =>
      set(
        'tips',
        tips &&
          (tips.every((entry) => Array.isArray(entry)) && tips.length > 0
            ? (tips as bigint[][])
            : [tips as bigint[]]
          ).map((block) => block.map((tip) => ({ tip, weight: 21_000 }))),
      ),
    setFeeHistory: (history) => set('feeHistory', history),
    setGasPrice: (wei) => set('gasPrice', wei),
    setMaxPriorityFee: (wei) => set('maxPriorityFee', wei),
    setL1BaseFee: (wei) => set('l1BaseFee', wei),
    setL1Fee: (wei) => set('l1Fee', wei),
    setOperatorFee: (fee) => set('operatorFee', fee),
    setBlobSupport: (mode) => set('blobSupport', mode),
    setL1GasEstimate: (gas) => set('l1GasEstimate', gas),
  };
}
