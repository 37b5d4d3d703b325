import { type Hex, keccak256, stringToHex, toHex } from 'viem';
import type { ChainModel, ChainView } from './chain-model';
import {
  callGasPriceOracle,
  callL1Block,
  GAS_PRICE_ORACLE,
  L1_BLOCK,
  l1BlockStorageAt,
} from './gas-price-oracle';
import { callNodeInterface, NODE_INTERFACE } from './node-interface';

/** A JSON-RPC error answer. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** What one call is answered from: this provider's chain and the faults bending it. */
export interface CallContext {
  model: ChainModel;
  view: ChainView;
  /** Chain id eth_chainId reports (another one under the wrong-chain fault). */
  chainId: number;
}

const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const EMPTY_BLOOM = `0x${'00'.repeat(256)}`;

function hashOf(...parts: (string | number)[]): Hex {
  return keccak256(stringToHex(`sim:${parts.join(':')}`));
}

function parseQuantity(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^0x[0-9a-f]+$/i.test(value)) return Number.parseInt(value, 16);
  throw new RpcError(-32602, `invalid argument: ${what} is not a hex quantity`);
}

/** Resolves a block tag or number against this view's head. */
function resolveBlock(tag: unknown, ctx: CallContext): number {
  const head = ctx.model.headNumber(ctx.view);
  switch (tag ?? 'latest') {
    case 'latest':
    case 'pending':
      return head;
    case 'safe':
      return head - 32;
    case 'finalized':
      return head - 64;
    case 'earliest':
      return 0;
    default:
      return parseQuantity(tag, 'block number');
  }
}

function formatBlock(n: number, full: boolean, ctx: CallContext): Record<string, unknown> {
  const { model, view, chainId } = ctx;
  const fees = model.fees(n, view);
  const hash = hashOf(chainId, n);
  const blob = model.hasBlobs ? model.blobHeader(n, view) : undefined;
  const transactions = fees.tips.map((sample, i) => {
    const txHash = hashOf(chainId, n, i);
    if (!full) return txHash;
    return {
      type: '0x2',
      hash: txHash,
      blockHash: hash,
      blockNumber: toHex(n),
      transactionIndex: toHex(i),
      chainId: toHex(chainId),
      from: `0x${txHash.slice(2, 42)}`,
      to: `0x${txHash.slice(26, 66)}`,
      nonce: '0x0',
      value: '0x0',
      input: '0x',
      gas: toHex(sample.weight),
      gasPrice: toHex(fees.baseFee + sample.tip),
      maxPriorityFeePerGas: toHex(sample.tip),
      maxFeePerGas: toHex(fees.baseFee * 2n + sample.tip),
      accessList: [],
      v: '0x0',
      yParity: '0x0',
      r: hashOf('r', chainId, n, i),
      s: hashOf('s', chainId, n, i),
    };
  });
  return {
    number: toHex(n),
    hash,
    parentHash: hashOf(chainId, n - 1),
    timestamp: toHex(model.timestampOf(n, view)),
    baseFeePerGas: toHex(fees.baseFee),
    gasLimit: toHex(model.profile.gasLimit),
    gasUsed: toHex(BigInt(Math.round(fees.gasUsedRatio * Number(model.profile.gasLimit)))),
    ...(blob ? { blobGasUsed: toHex(blob.blobGasUsed), excessBlobGas: toHex(blob.excessBlobGas) } : {}),
    difficulty: '0x0',
    extraData: '0x',
    logsBloom: EMPTY_BLOOM,
    miner: '0x4838b106fce9647bdf1e7877bf73ce8b0bad5f97',
    mixHash: hashOf('mix', chainId, n),
    nonce: '0x0000000000000000',
    parentBeaconBlockRoot: hashOf('beacon', chainId, n),
    receiptsRoot: hashOf('receipts', chainId, n),
    sha3Uncles: EMPTY_UNCLES,
    size: toHex(600 + fees.tips.length * 150),
    stateRoot: hashOf('state', chainId, n),
    transactionsRoot: hashOf('txs', chainId, n),
    withdrawalsRoot: hashOf('withdrawals', chainId, n),
    transactions,
    uncles: [],
    withdrawals: [],
  };
}

function answerFeeHistory(params: unknown[], ctx: CallContext): unknown {
  const count = parseQuantity(params[0], 'block count');
  const newest = resolveBlock(params[1], ctx);
  const head = ctx.model.headNumber(ctx.view);
  if (newest > head)
    throw new RpcError(-32000, `request beyond head block: requested ${newest}, head ${head}`);
  const percentiles = (params[2] ?? []) as unknown[];
  if (!Array.isArray(percentiles)) throw new RpcError(-32602, 'invalid argument 2: not an array');
  percentiles.forEach((p, i) => {
    const previous = percentiles[i - 1] as number;
    if (typeof p !== 'number' || p < 0 || p > 100 || (i > 0 && p <= previous)) {
      throw new RpcError(-32602, `invalid reward percentile: #${i}:${String(p)}`);
    }
  });
  if (count < 1) return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [] };
  const history = ctx.model.feeHistory(count, newest, percentiles as number[], ctx.view);
  return {
    oldestBlock: toHex(history.oldestBlock),
    baseFeePerGas: history.baseFeePerGas.map((fee) => toHex(fee)),
    gasUsedRatio: history.gasUsedRatio,
    ...(history.baseFeePerBlobGas
      ? {
          baseFeePerBlobGas: history.baseFeePerBlobGas.map((fee) => toHex(fee)),
          blobGasUsedRatio: history.blobGasUsedRatio,
        }
      : {}),
    ...(history.reward ? { reward: history.reward.map((row) => row.map((tip) => toHex(tip))) } : {}),
  };
}

/**
 * The block a state call (eth_call, eth_getStorageAt) names, as geth resolves it: one above this
 * node's head is not there yet (a node behind the one that served the head, behind the same URL).
 */
function stateBlock(tag: unknown, ctx: CallContext): number {
  const n = resolveBlock(tag, ctx);
  if (n > ctx.model.headNumber(ctx.view)) throw new RpcError(-32000, 'header not found');
  return n;
}

function answerCall(params: unknown[], ctx: CallContext): Hex {
  const call = (params[0] ?? {}) as { to?: string; data?: Hex; input?: Hex };
  const data = call.data ?? call.input ?? '0x';
  const block = stateBlock(params[1], ctx);
  const oracle = ctx.model.profile.opOracle;
  const arbL1 = ctx.model.profile.arbL1PricePerUnit;
  if (arbL1 !== undefined && call.to?.toLowerCase() === NODE_INTERFACE) {
    const pricing = {
      baseFee: ctx.model.fees(block, ctx.view).baseFee,
      l1PricePerUnit: arbL1,
    };
    const result = callNodeInterface(data, pricing, ctx.model.overrides.l1GasEstimate ?? ctx.view.absurd);
    if (result === null) throw new RpcError(3, 'execution reverted', '0x');
    return result;
  }
  const to = call.to?.toLowerCase();
  // Any other address is an account without code here: the EVM answers an empty result.
  if (!oracle || (to !== GAS_PRICE_ORACLE && to !== L1_BLOCK)) return '0x';
  const { model, view } = ctx;
  const operatorFee = model.overrides.operatorFee ?? oracle.operatorFee;
  if (to === L1_BLOCK) {
    const answer = callL1Block(data, operatorFee);
    if (!answer.ok) throw new RpcError(3, 'execution reverted', '0x');
    return answer.data;
  }
  const absurd = view.absurd;
  const state = {
    ...oracle,
    l1BaseFee: absurd ?? model.overrides.l1BaseFee ?? oracle.l1BaseFee,
    operatorFee,
  };
  const result = callGasPriceOracle(data, state, {
    gasPrice: model.gasPrice(view),
    baseFee: model.fees(block, view).baseFee,
    l1Fee: absurd !== undefined ? absurd * 100_000n : model.overrides.l1Fee,
  });
  if (!result.ok) throw new RpcError(3, 'execution reverted', '0x');
  return result.data;
}

/**
 * eth_getStorageAt at a block the node has: a 32-byte word; OP Stack L1Block's operator fee slot,
 * every other slot 0.
 */
function answerStorageAt(params: unknown[], ctx: CallContext): Hex {
  const [address, slot] = params;
  if (typeof address !== 'string' || typeof slot !== 'string' || !/^0x[0-9a-f]{1,64}$/i.test(slot)) {
    throw new RpcError(-32602, 'invalid argument: address and storage slot expected');
  }
  stateBlock(params[2], ctx);
  const oracle = ctx.model.profile.opOracle;
  const fee = ctx.model.overrides.operatorFee ?? oracle?.operatorFee;
  const word = fee && address.toLowerCase() === L1_BLOCK ? l1BlockStorageAt(BigInt(slot), fee) : 0n;
  return toHex(word, { size: 32 });
}

/** Answers one JSON-RPC call as a post-Cancun geth-compatible node of this chain would. */
export function answerRpcCall(method: string, params: unknown[], ctx: CallContext): unknown {
  const { model, view } = ctx;
  switch (method) {
    case 'eth_chainId':
      return toHex(ctx.chainId);
    case 'net_version':
      return String(ctx.chainId);
    case 'web3_clientVersion':
      return model.profile.clientVersion;
    case 'eth_syncing':
      return false;
    case 'eth_blockNumber':
      return toHex(model.headNumber(view));
    case 'eth_getBlockByNumber': {
      const n = resolveBlock(params[0], ctx);
      return n > model.headNumber(view) || n < 0 ? null : formatBlock(n, params[1] === true, ctx);
    }
    case 'eth_feeHistory':
      return answerFeeHistory(params, ctx);
    case 'eth_gasPrice':
      return toHex(model.gasPrice(view));
    case 'eth_maxPriorityFeePerGas':
      return toHex(model.maxPriorityFee(view));
    case 'eth_blobBaseFee':
      if (model.overrides.blobSupport === 'none' || model.overrides.blobSupport === 'no-method') {
        throw new RpcError(-32601, `the method ${method} does not exist/is not available`);
      }
      if (model.overrides.blobSupport === 'null-answer') return null;
      if (model.overrides.blobSupport === 'empty-answer') return '0x';
      // The execution-apis spec's meaning: the next block's blob base fee.
      if (model.overrides.feeHistory)
        return toHex(model.overrides.feeHistory.baseFeePerBlobGas?.at(-1) ?? 1n);
      return toHex(model.fees(model.headNumber(view) + 1, view).blobBaseFee);
    case 'eth_call':
      return answerCall(params, ctx);
    case 'eth_getStorageAt':
      return answerStorageAt(params, ctx);
    default:
      throw new RpcError(-32601, `the method ${method} does not exist/is not available`);
  }
}
