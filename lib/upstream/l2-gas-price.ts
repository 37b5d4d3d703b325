import type { PublicClient } from 'viem';
import { settleWithin } from '../async';
import type { AppDeps } from '../deps';
import { weiToGwei } from '../l2/fees';
import type { L2Network } from '../l2/networks';
import { readL1FeeWei } from './op-l1-fee';
import { classifyRpcError, RpcAttemptError, type RpcFailureKind } from './rpc-errors';
import { createRpcPool, type RpcPoolOptions } from './rpc-pool';

/** Providers may trail the best head seen by about this much time before their answers are refused. */
const MAX_LAG_MS = 60_000;
/**
 * Once the gas price is in, the L1 fee (asked at the same moment) gets this much longer: a hung
 * oracle call must not cost the network its gas price, nor hold the answer to the pool's deadline.
 */
export const L1_FEE_GRACE_MS = 500;

/** One network read live from one provider. */
export interface L2LiveReading {
  gasPriceWei: bigint;
  /** OP Stack: the L1 data fee of the representative transfer; null elsewhere or when the oracle failed. */
  l1FeeWei: bigint | null;
  /** Why the L1 fee of an OP Stack network is missing; undefined when it was read or is not applicable. */
  l1FeeFailure?: RpcFailureKind;
  blockNumber: bigint;
  /** Timestamp (Unix seconds) of the provider's latest block. */
  blockTimestamp: number;
  /** Label of the provider that answered the gas price; never a URL. */
  provider: string;
  /** When the answer arrived (epoch ms). */
  readAt: number;
}

type ReadDeps = Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state'>;

interface Sample {
  gasPriceWei: bigint;
  l1: { fee: bigint } | { failure: RpcFailureKind } | null;
  head: { number: bigint; timestamp: number };
}

/**
 * Reads one L2 network live: `eth_gasPrice`, the latest block (freshness) and, on OP Stack networks,
 * the GasPriceOracle's `getL1Fee` are asked at once of one provider, with the shared pool's chain-id
 * check, hedged failover and cooldown. A gas price outside the network's sane range rejects the
 * provider. A failed L1-fee call does not: the reading keeps its gas price, and the L1 fee is asked
 * once more of the other providers, for at most UPSTREAM_TIMEOUT_MS and within twice that overall.
 * Throws an RpcPoolError when no provider gives a valid, fresh gas price.
 */
export async function readL2Network(
  deps: ReadDeps,
  network: L2Network,
  overrides: Partial<RpcPoolOptions> = {},
): Promise<L2LiveReading> {
  const startedAt = deps.now();
  const timeoutMs = deps.config.upstreamTimeoutMs;
  const options: RpcPoolOptions = {
    name: network.id,
    chainId: network.chainId,
    providers: deps.config.l2Rpc[network.id],
    timeoutMs,
    maxLagBlocks: Math.ceil(MAX_LAG_MS / network.blockTimeMs),
    ...overrides,
  };
  const pool = createRpcPool(deps, options);
  const answer = await pool.request((client) => readSample(client, network), {
    stampOf: (sample) => ({ blockNumber: sample.head.number, timestamp: sample.head.timestamp }),
  });
  const { gasPriceWei, l1, head } = answer.value;
  const reading: L2LiveReading = {
    gasPriceWei,
    l1FeeWei: l1 && 'fee' in l1 ? l1.fee : null,
    blockNumber: head.number,
    blockTimestamp: head.timestamp,
    provider: answer.provider,
    readAt: deps.now(),
  };
  if (!l1 || 'fee' in l1) return reading;

  deps.log.warn('l1 fee read failed', { network: network.id, provider: answer.provider, kind: l1.failure });
  const others = pool.providers.filter((p) => p.label !== answer.provider);
  const leftMs = Math.min(timeoutMs, 2 * timeoutMs - (deps.now() - startedAt));
  if (others.length === 0 || leftMs < 200) return { ...reading, l1FeeFailure: l1.failure };
  try {
    // Its own health record: a failing oracle call must not put a provider whose gas price is
    // good on hold in the network's pool.
    const retry = createRpcPool(deps, {
      ...options,
      name: `${network.id}:l1-fee`,
      providers: others,
      deadlineMs: leftMs,
    });
    const fee = await retry.request((client) => readL1FeeWei(rpcCall(client), network.chainId));
    return { ...reading, l1FeeWei: fee.value };
  } catch (error) {
    deps.log.warn('l1 fee unavailable', { network: network.id, kind: classifyRpcError(error).kind });
    return { ...reading, l1FeeFailure: l1.failure };
  }
}

async function readSample(client: PublicClient, network: L2Network): Promise<Sample> {
  const l1 = network.hasL1DataFee
    ? readL1FeeWei(rpcCall(client), network.chainId).then(
        (fee) => ({ fee }),
        (error: unknown) => ({ failure: classifyRpcError(error).kind }),
      )
    : Promise.resolve(null);
  const [gasPriceWei, block] = await Promise.all([
    client.getGasPrice(),
    client.getBlock({ blockTag: 'latest' }),
  ]);
  if (typeof block?.number !== 'bigint' || typeof block.timestamp !== 'bigint') {
    throw new RpcAttemptError('malformed', 'latest block without number or timestamp');
  }
  const gwei = weiToGwei(gasPriceWei);
  const { min, max } = network.saneGasPriceGwei;
  if (!(gwei >= min && gwei <= max)) throw new RpcAttemptError('absurd', 'gas price out of range');
  return {
    gasPriceWei,
    // l1 never rejects, so a rejection here is the grace running out.
    l1: await settleWithin(l1, L1_FEE_GRACE_MS).catch(() => ({ failure: 'timeout' as const })),
    head: { number: block.number, timestamp: Number(block.timestamp) },
  };
}

/** Adapts a viem client to the plain JSON-RPC call the oracle reader takes. */
function rpcCall(client: PublicClient) {
  return (method: string, params: unknown[]) =>
    client.request({ method, params } as unknown as Parameters<PublicClient['request']>[0]);
}
