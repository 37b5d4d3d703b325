import { toHex } from 'viem';
import { getBlock, getGasPrice } from 'viem/actions';
import { settleWithin } from '../async';
import { type AppDeps, getState } from '../deps';
import { isSaneGasPriceGwei, type L2Network } from '../l2/networks';
import type { OperatorFeeReading } from '../l2/operator-fee';
import { weiToGwei } from '../units';
import { type ArbL1Component, readArbitrumL1Component } from './arb-l1-gas';
import { type ReadBlock, type RpcCall, readL1FeeWei } from './op-l1-fee';
import { readOperatorFee } from './op-operator-fee';
import { classifyRpcError, RpcAttemptError, type RpcFailureKind, RpcPoolError } from './rpc-errors';
import { assertFresh, type BlockStamp } from './rpc-freshness';
import { createPoolHealth, readyProviders } from './rpc-health';
import {
  createRpcPool,
  DEFAULT_HEDGE_DELAY_MS,
  freshnessLimitsOf,
  getPoolStateKey,
  isQuantity,
  type RpcClient,
  type RpcPoolOptions,
  rpcCall,
} from './rpc-pool';

/**
 * Providers may trail the best head seen by this much block time before their answers are refused
 * as lagging: under the pool's 60-s age limit, or a head that far behind would always be refused as
 * stale first and the lag check would never decide anything. Blocks come every 0.25 to 2 s here.
 */
const MAX_LAG_MS = 30_000;
/**
 * Once the gas price is in, the oracle calls (asked at the same moment) get this much longer: a hung
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
  /** OP Stack: its operator fee, read on its own (its failure leaves the L1 fee be); null elsewhere or failed. */
  operatorFee: OperatorFeeReading | null;
  /** Why the operator fee of an OP Stack network is missing; undefined when it was read or is not applicable. */
  operatorFeeFailure?: RpcFailureKind;
  /** Base fee of the latest block; null when the block carries none. */
  baseFeeWei: bigint | null;
  /** The chain's own tip suggestion (eth_maxPriorityFeePerGas); null where tips are ignored or it failed. */
  suggestedTipWei: bigint | null;
  /**
   * Arbitrum: gas units of the representative transfer's L1 component; null elsewhere or when every
   * provider asked failed. From the gas price's provider, else from another one (asked as the OP
   * Stack oracle fees are).
   */
  l1GasUnits: bigint | null;
  /**
   * Arbitrum: the L2 base fee the NodeInterface computed those units with (and Nitro charges them at),
   * from the same answer as the units, so from the same provider.
   */
  l1GasBaseFeeWei: bigint | null;
  blockNumber: bigint;
  /** Timestamp (Unix seconds) of the provider's latest block. */
  blockTimestamp: number;
  /** Label of the provider that answered the gas price; never a URL. */
  provider: string;
  /** When the answer arrived (epoch ms). */
  readAt: number;
}

type ReadDeps = Pick<AppDeps, 'config' | 'fetch' | 'now' | 'log' | 'state'>;

type Settled<T> = { value: T } | { failure: RpcFailureKind } | null;

interface Sample {
  gasPriceWei: bigint;
  l1: Settled<bigint>;
  operatorFee: Settled<OperatorFeeReading>;
  head: BlockStamp;
  baseFeeWei: bigint | null;
  tip: Settled<bigint>;
  l1Gas: Settled<ArbL1Component>;
}

/**
 * Reads one L2 network live: `eth_gasPrice`, the latest block (freshness) and, on OP Stack networks,
 * the GasPriceOracle's `getL1Fee` and the operator fee (`getOperatorFee`, the L1Block parameters), on
 * Arbitrum the NodeInterface's L1 component, are asked at once of one provider, with the shared pool's
 * chain-id check, hedged failover and cooldown. A gas price outside the network's sane range rejects
 * the provider. A failed contract read does not: the reading keeps its gas price, and the read that
 * failed (the L1 fee, the operator fee, the L1 component: each on its own, one's failure never costs
 * another) is asked once more of the other providers, for at most UPSTREAM_TIMEOUT_MS and within
 * twice that overall, each one's head checked first as the gas price's was and the read asked at it.
 * All of it by `deadlineAt` (epoch ms) when that comes first (a refresh's, see SharedKind.read).
 * Throws an RpcPoolError when no provider gives a valid, fresh gas price.
 */
export async function readL2Network(
  deps: ReadDeps,
  network: L2Network,
  deadlineAt = Number.POSITIVE_INFINITY,
): Promise<L2LiveReading> {
  const startedAt = deps.now();
  const timeoutMs = deps.config.upstreamTimeoutMs;
  const options: RpcPoolOptions = {
    name: network.id,
    chainId: network.chainId,
    providers: deps.config.l2Rpc[network.id],
    timeoutMs,
    maxLagMs: MAX_LAG_MS,
    batch: true,
    deadlineMs: Math.max(1, Math.min(timeoutMs + DEFAULT_HEDGE_DELAY_MS, deadlineAt - startedAt)),
  };
  const pool = createRpcPool(deps, options);
  const answer = await pool.request(
    (client, _, side, answered) => readSample(client, side, network, answered),
    { stampOf: (sample) => sample.head },
  );
  const { gasPriceWei, l1, operatorFee, head, baseFeeWei, tip, l1Gas } = answer.value;
  if (tip && 'failure' in tip)
    deps.log.warn('priority fee read failed', {
      network: network.id,
      provider: answer.provider,
      kind: tip.failure,
    });
  const reading: L2LiveReading = {
    gasPriceWei,
    l1FeeWei: l1 && 'value' in l1 ? l1.value : null,
    operatorFee: operatorFee && 'value' in operatorFee ? operatorFee.value : null,
    blockNumber: head.blockNumber,
    blockTimestamp: head.timestamp,
    provider: answer.provider,
    readAt: deps.now(),
    baseFeeWei,
    suggestedTipWei: tip && 'value' in tip ? tip.value : null,
    l1GasUnits: l1Gas && 'value' in l1Gas ? l1Gas.value.gasUnits : null,
    l1GasBaseFeeWei: l1Gas && 'value' in l1Gas ? l1Gas.value.baseFeeWei : null,
  };
  // Only those the network's pool would ask now: not one it holds back (rate-limited, failing).
  const poolHealth = getState(deps, getPoolStateKey(options.name, options.chainId), createPoolHealth);
  const others = readyProviders(poolHealth, pool.providers, deps.now()).filter(
    (p) => p.label !== answer.provider,
  );
  const limits = freshnessLimitsOf(options);
  /**
   * Asks the other providers once for a contract read that failed; its failure kind when none gives it.
   * Each one's latest block is read first and checked as the gas price's was (its age, and its lag
   * behind the best block the network's pool has seen, the answer just taken included); the read is
   * then asked at a block RETRY_READ_BEHIND_MS of blocks below it. A stale or lagging provider is
   * refused as the network's pool refuses it, without its contract call being asked, and the answer is
   * from checked state: a node further behind (another one behind the same URL) refuses the call, a
   * failure too. Until 2026-11-28 the read went out at `latest` with no block checked, so a provider
   * minutes behind gave its L1 fee, operator fee or L1 gas units as live.
   */
  async function retry<T>(
    part: 'l1 fee' | 'operator fee' | 'l1 gas units',
    failure: RpcFailureKind,
    read: (call: RpcCall, block: ReadBlock) => Promise<T>,
  ): Promise<{ value: T } | { failure: RpcFailureKind }> {
    deps.log.warn(`${part} read failed`, { network: network.id, provider: answer.provider, kind: failure });
    const leftMs = Math.min(timeoutMs, 2 * timeoutMs - (deps.now() - startedAt), deadlineAt - deps.now());
    if (others.length === 0 || leftMs < 200) return { failure };
    try {
      // Its own health record: a failing contract call must not put a provider whose gas price is
      // good on hold in the network's pool.
      const pool = createRpcPool(deps, {
        ...options,
        name: `${network.id}:${part.replaceAll(' ', '-')}`,
        providers: others,
        deadlineMs: leftMs,
        // Contract calls are never batched (README, Providers): a provider's batch limit cannot cost them.
        batch: false,
        // An attempt is two round trips one after the other (the head, then the call at it).
        hedgeDelayMs: 2 * (options.hedgeDelayMs ?? DEFAULT_HEDGE_DELAY_MS),
      });
      const behind = BigInt(Math.ceil(RETRY_READ_BEHIND_MS / network.blockTimeMs));
      const retried = await pool.request(async (client) => {
        const head = headOf(await getBlock(client, { blockTag: 'latest' }));
        // Against the network pool's best block: the retry pool's own has seen no gas price.
        assertFresh(head, poolHealth, limits, deps.now());
        const block = head.blockNumber > behind ? head.blockNumber - behind : 0n;
        return read(rpcCall(client), toHex(block));
      });
      return { value: retried.value };
    } catch (error) {
      // The retry pool's failures per provider (labels and kinds only), not one kind for the pool's error.
      const failures =
        error instanceof RpcPoolError ? error.failures : [{ kind: classifyRpcError(error).kind }];
      deps.log.warn(`${part} unavailable`, { network: network.id, failures });
      return { failure };
    }
  }
  const [l1Retried, operatorFeeRetried, l1GasRetried] = await Promise.all([
    l1 && 'failure' in l1
      ? retry('l1 fee', l1.failure, (call, block) => readL1FeeWei(call, network.chainId, block))
      : null,
    operatorFee && 'failure' in operatorFee
      ? retry('operator fee', operatorFee.failure, readOperatorFee)
      : null,
    // The units and the base fee they were computed with come from one answer, so one provider.
    l1Gas && 'failure' in l1Gas
      ? retry('l1 gas units', l1Gas.failure, (call, block) =>
          readArbitrumL1Component(call, isSaneBaseFeeOf(network), block),
        )
      : null,
  ]);
  if (l1Retried) {
    if ('value' in l1Retried) reading.l1FeeWei = l1Retried.value;
    else reading.l1FeeFailure = l1Retried.failure;
  }
  if (operatorFeeRetried) {
    if ('value' in operatorFeeRetried) reading.operatorFee = operatorFeeRetried.value;
    else reading.operatorFeeFailure = operatorFeeRetried.failure;
  }
  // A failure is logged by the retry; the reading then has no units (null), which is all its readers need.
  if (l1GasRetried && 'value' in l1GasRetried) {
    reading.l1GasUnits = l1GasRetried.value.gasUnits;
    reading.l1GasBaseFeeWei = l1GasRetried.value.baseFeeWei;
  }
  return reading;
}

/**
 * The gas price, latest block and tip suggestion go out as one batch on `client`; the contract calls
 * (the OP Stack L1 and operator fees, the NodeInterface) each as their own request on `side`, so a
 * slow contract call cannot hold the gas price, nor a provider's batch limit cost the L1 fee.
 */
async function readSample(
  client: RpcClient,
  side: RpcClient,
  network: L2Network,
  answered: () => void,
): Promise<Sample> {
  const call = rpcCall(client);
  const contract = rpcCall(side);
  const l1 = network.hasL1DataFee ? settle(readL1FeeWei(contract, network.chainId)) : null;
  const operatorFee = network.hasL1DataFee ? settle(readOperatorFee(contract)) : null;
  const tip =
    network.priorityFee === 'market' ? settle(readQuantity(call, 'eth_maxPriorityFeePerGas')) : null;
  const l1Gas = network.hasL1GasUnits
    ? settle(readArbitrumL1Component(contract, isSaneBaseFeeOf(network)))
    : null;
  const [gasPriceWei, block] = await Promise.all([
    getGasPrice(client),
    getBlock(client, { blockTag: 'latest' }),
  ]);
  const head = headOf(block);
  const { max } = network.saneGasPriceGwei;
  if (!isSaneGasPriceGwei(network, weiToGwei(gasPriceWei))) {
    throw new RpcAttemptError('absurd', 'gas price out of range');
  }
  const baseFeeWei = typeof block.baseFeePerGas === 'bigint' ? block.baseFeePerGas : null;
  if (baseFeeWei !== null && weiToGwei(baseFeeWei) > max)
    throw new RpcAttemptError('absurd', 'base fee out of range');
  // The gas price is in and sane: the pool does not hedge this provider for the optional reads, whose
  // wait is bounded below. The extra reads never reject; past the grace they count as timed out.
  const grace = <T>(settled: Promise<Settled<T>> | null) =>
    settled && settleWithin(settled, L1_FEE_GRACE_MS).catch(() => ({ failure: 'timeout' as const }));
  answered();
  const [l1Settled, operatorFeeSettled, tipSettled, l1GasSettled] = await Promise.all([
    grace(l1),
    grace(operatorFee),
    grace(tip),
    grace(l1Gas),
  ]);
  if (tipSettled && 'value' in tipSettled && weiToGwei(tipSettled.value) > max) {
    throw new RpcAttemptError('absurd', 'priority fee out of range');
  }
  return {
    gasPriceWei,
    l1: l1Settled,
    operatorFee: operatorFeeSettled,
    head,
    baseFeeWei,
    tip: tipSettled,
    l1Gas: l1GasSettled,
  };
}

/**
 * How far below a retry provider's checked head its contract read is asked, in time (a block count per
 * network's block time: 2 blocks on OP Stack, 16 on Arbitrum). A public provider's load balancer may
 * send the call to another node a block or two behind the one that gave the head, which refuses a
 * block it has not got ("header not found"); on Arbitrum's 0.25-s blocks that is common at the head
 * itself. The fees read change with L1 blocks (12 s) or slower, so 4 s older state prices the same.
 */
const RETRY_READ_BEHIND_MS = 4_000;

/** The number and time of a provider's latest block; a block without them is a malformed answer. */
function headOf(block: { number: bigint | null; timestamp: bigint } | null | undefined): BlockStamp {
  if (typeof block?.number !== 'bigint' || typeof block.timestamp !== 'bigint') {
    throw new RpcAttemptError('malformed', 'latest block without number or timestamp');
  }
  return { blockNumber: block.number, timestamp: Number(block.timestamp) };
}

/** Whether a base fee the NodeInterface returned is in the network's sane gas-price range. */
function isSaneBaseFeeOf(network: L2Network): (wei: bigint) => boolean {
  return (wei) => isSaneGasPriceGwei(network, weiToGwei(wei));
}

/** Turns a read into a value or a failure kind, so one optional read never fails the reading. */
function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ failure: classifyRpcError(error).kind }),
  );
}

async function readQuantity(call: ReturnType<typeof rpcCall>, method: string): Promise<bigint> {
  const value = await call(method, []);
  if (!isQuantity(value)) {
    throw new RpcAttemptError('malformed', `${method} is not a quantity`);
  }
  return BigInt(value);
}
