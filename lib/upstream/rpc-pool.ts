import { type Client, createClient, HttpRequestError, type HttpTransport, http, RpcRequestError } from 'viem';
import { getChainId } from 'viem/actions';
import { stillWaiting } from '../clock';
import type { RpcEndpoint } from '../config';
import { type AppDeps, getState } from '../deps';
import { classifyRpcError, RpcAttemptError, type RpcFailure, RpcPoolError } from './rpc-errors';
import {
  assertFresh,
  type BlockStamp,
  type FreshnessLimits,
  MAX_BLOCK_AGE_MS,
  recordBestBlock,
} from './rpc-freshness';
import {
  CHAIN_RECHECK_MS,
  createPoolHealth,
  getProviderHealth,
  orderCandidates,
  recordFailure,
  recordSuccess,
  reserveCandidates,
} from './rpc-health';

/**
 * How long the first provider has before the next one is asked as well. Healthy public providers
 * answer `eth_feeHistory` in 50-250 ms; 350 ms leaves room for their slow tail while keeping a hung
 * provider from costing more than about a third of a second.
 */
export const DEFAULT_HEDGE_DELAY_MS = 350;
/** A provider asked from the reserve (cooling down) has this many hedge delays to answer. */
const RESERVE_BUDGET_HEDGES = 2;

/** One configured provider. `url` stays inside the process; only `label` is ever shown. */
export interface RpcProvider {
  key: string;
  url: string;
  label: string;
}

export interface RpcPoolOptions extends Partial<FreshnessLimits> {
  /** Names the pool in logs and keys its per-process health (e.g. `mainnet`, `arbitrum`). */
  name: string;
  /** The chain id every provider must report. */
  chainId: number;
  /** Providers in priority order, each with the label shown for it (see the configuration). */
  providers: readonly RpcEndpoint[];
  /** Budget of one attempt (one provider), in ms. */
  timeoutMs: number;
  hedgeDelayMs?: number;
  /** Budget of the whole request across providers; default timeoutMs + hedgeDelayMs. */
  deadlineMs?: number;
  /**
   * Send the calls one `call` makes in the same tick as one JSON-RPC batch (one HTTP round trip). A
   * provider that refuses batches has the batch's calls asked again at once as single requests (the
   * attempt's other requests stand) and is remembered (see ProviderHealth.batchRefusedAt).
   */
  batch?: boolean;
}

/**
 * A bare viem client: calls go through viem's standalone actions (`viem/actions`), not the methods of
 * `createPublicClient`, which brings every public action and with them code the Worker bundle would
 * carry for nothing (ENS, call simulation, the secp256k1 curve for signature checks).
 */
export type RpcClient = Client<HttpTransport>;

/** A client as a plain JSON-RPC call (any method, untyped answer), as the readers and oracles take it. */
export function rpcCall(client: RpcClient) {
  return (method: string, params: unknown[]): Promise<unknown> =>
    client.request({ method, params } as unknown as Parameters<RpcClient['request']>[0]);
}

/** A JSON-RPC quantity (`0x` and 1 to 64 hex digits), as a method answering a number must send. */
export function isQuantity(value: unknown): value is `0x${string}` {
  return typeof value === 'string' && /^0x[0-9a-f]{1,64}$/i.test(value);
}

/**
 * One attempt's work on one provider. `client` batches the calls made in the same tick when the pool
 * batches (a refused batch's calls are each asked again singly, at once); `side` is for calls that
 * must not hold those (contract calls that may hang): it sends each call as its own request (asked
 * together, they still take one round trip), and is `client` itself when the pool does not batch.
 * Never a batch: with them a batch would go over dRPC's free-tier limit (3 calls) every time, one
 * request lost per refresh. `answered` tells
 * the pool that the answer's required part is in and only optional reads (bounded by the call) are
 * left: the provider is then not hedged for them, nor struck as outrun by a provider asked meanwhile.
 */
export type RpcCallFn<T> = (
  client: RpcClient,
  provider: RpcProvider,
  side: RpcClient,
  answered: () => void,
) => Promise<T>;

/** A validated answer and the label of the provider that gave it. */
export interface RpcAnswer<T> {
  value: T;
  provider: string;
}

export interface RpcRequestOptions<T> {
  /** The block the answer reflects, checked against the freshness limits; omit for chain-state-free calls. */
  stampOf?: (value: T) => BlockStamp;
}

export interface RpcPool {
  readonly providers: readonly RpcProvider[];
  /**
   * Runs `call` against the providers with hedged failover and returns the first answer that passes
   * the chain-id check, `call`'s own validation (throw to reject) and the freshness limits. Throws an
   * RpcPoolError listing each provider's failure kind when none does within the deadline.
   */
  request<T>(call: RpcCallFn<T>, options?: RpcRequestOptions<T>): Promise<RpcAnswer<T>>;
}

type PoolDeps = Pick<AppDeps, 'fetch' | 'now' | 'log' | 'state'>;

/** The freshness limits a pool with these options applies to every answer it checks (60 s of age by default). */
export function freshnessLimitsOf(options: Partial<FreshnessLimits>): FreshnessLimits {
  return {
    maxBlockAgeMs: options.maxBlockAgeMs ?? MAX_BLOCK_AGE_MS,
    // Three mainnet slots.
    maxLagMs: options.maxLagMs ?? 36_000,
  };
}

/**
 * Creates a pool over a chain's providers for one request or cron run (clients are not shared across
 * requests); provider health, chain-id checks and the best block seen live in `deps.state` and so
 * persist for the process.
 */
export function createRpcPool(deps: PoolDeps, options: RpcPoolOptions): RpcPool {
  const providers = options.providers.map(({ url, label }) => ({ key: url, url, label }));
  const hedgeDelayMs = options.hedgeDelayMs ?? DEFAULT_HEDGE_DELAY_MS;
  const deadlineMs = options.deadlineMs ?? options.timeoutMs + hedgeDelayMs;
  const limits = freshnessLimitsOf(options);
  const health = getState(deps, getPoolStateKey(options.name, options.chainId), createPoolHealth);

  async function attempt<T>(
    provider: RpcProvider,
    signal: AbortSignal,
    timeoutMs: number,
    call: RpcCallFn<T>,
    stampOf: ((value: T) => BlockStamp) | undefined,
    answered: () => void,
  ): Promise<T> {
    const providerHealth = getProviderHealth(health, provider.key);
    const transportFor = (batch: boolean) =>
      http(provider.url, {
        timeout: timeoutMs,
        retryCount: 0,
        batch,
        fetchFn: (input, init) =>
          deps.fetch(input, {
            ...init,
            signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
          }),
      });
    const refusedAt = providerHealth.batchRefusedAt;
    let refusalSeen = false;
    /**
     * Batches the calls made in the same tick; when the provider refuses the batch, each of its calls
     * is asked again at once as a single request and the refusal remembered. Only the batch is asked
     * again: until 2026-11-28 a refusal ran the whole attempt again, the contract calls sent beside
     * the batch included (three requests more on OP Stack).
     */
    const batching: HttpTransport = (params) => {
      const batched = transportFor(true)(params);
      const single = transportFor(false)(params);
      const request = (async (args, requestOptions) => {
        try {
          return await batched.request(args, requestOptions);
        } catch (error) {
          if (!isBatchRefusal(error) || signal.aborted) throw error;
          if (!refusalSeen) {
            refusalSeen = true;
            providerHealth.batchRefusedAt = deps.now();
            deps.log.warn('rpc provider refuses batches; asking singly', {
              pool: options.name,
              provider: provider.label,
            });
          }
          return await single.request(args, requestOptions);
        }
      }) as typeof batched.request;
      return { ...batched, request };
    };
    // A provider that refused a batch is asked singly, and tried with batches again now and then.
    const batch =
      options.batch === true &&
      !(refusedAt !== undefined && stillWaiting(refusedAt + CHAIN_RECHECK_MS, deps.now(), CHAIN_RECHECK_MS));
    const single: RpcClient = createClient({ transport: transportFor(false) });
    const client: RpcClient = batch ? createClient({ transport: batching }) : single;
    // The chain-id check runs beside the call, and the first failure of either ends the attempt: a
    // provider on the wrong chain is dropped as soon as it says so, not when its other answers are in.
    // It never goes in a batch to a provider that has refused one: the reads fill a batch to dRPC's
    // free-tier limit (3 calls), so with the chain id every batch retried there was refused again.
    const chainClient = refusedAt === undefined ? client : single;
    const checkChain = async () => {
      const checkedAt = providerHealth.chainVerifiedAt;
      if (checkedAt > 0 && stillWaiting(checkedAt + CHAIN_RECHECK_MS, deps.now(), CHAIN_RECHECK_MS)) return;
      if ((await getChainId(chainClient)) !== options.chainId) {
        throw new RpcAttemptError('wrong-chain', 'unexpected chain id');
      }
      providerHealth.chainVerifiedAt = deps.now();
    };
    const chainChecked = checkChain();
    // The required part is in only once the chain id is confirmed too (it may be a request of its own).
    const answeredOnChain = () => void chainChecked.then(answered, () => {});
    const [, value] = await Promise.all([chainChecked, call(client, provider, single, answeredOnChain)]);
    if (stampOf) assertFresh(stampOf(value), health, limits, deps.now());
    return value;
  }

  function request<T>(call: RpcCallFn<T>, requestOptions: RpcRequestOptions<T> = {}): Promise<RpcAnswer<T>> {
    const startedAt = deps.now();
    const candidates = orderCandidates(health, providers, startedAt);
    const reserve = reserveCandidates(health, providers, candidates);
    const failures: RpcFailure[] = [];
    const running = new Map<RpcProvider, AbortController>();
    /** Providers whose attempt has its required answer in (see RpcCallFn's `answered`). */
    const answeredParts = new Set<RpcProvider>();
    let next = 0;
    let settled = false;
    let hedgeTimer: ReturnType<typeof setTimeout> | undefined;
    let deadlineTimer: ReturnType<typeof setTimeout> | undefined;

    return new Promise<RpcAnswer<T>>((resolve, reject) => {
      const fail = (provider: RpcProvider, error: unknown) => {
        const { kind, code, retryAfterMs } = classifyRpcError(error);
        recordFailure(getProviderHealth(health, provider.key), kind, deps.now(), retryAfterMs);
        failures.push(
          code === undefined ? { provider: provider.label, kind } : { provider: provider.label, kind, code },
        );
        deps.log.warn('rpc attempt failed', { pool: options.name, provider: provider.label, kind, code });
      };
      const finish = () => {
        settled = true;
        clearTimeout(hedgeTimer);
        clearTimeout(deadlineTimer);
      };
      const giveUp = () => {
        if (settled) return;
        finish();
        for (const [provider, controller] of running) {
          controller.abort();
          fail(provider, new RpcAttemptError('timeout', 'request deadline reached'));
        }
        running.clear();
        reject(new RpcPoolError(options.name, failures));
      };
      const launch = (budgetMs = options.timeoutMs): boolean => {
        const provider = candidates[next];
        if (settled || !provider) return false;
        next += 1;
        const controller = new AbortController();
        running.set(provider, controller);
        const remaining = Math.max(1, deadlineMs - (deps.now() - startedAt));
        // Its required part is in: no hedge for its optional reads (unless a later one is already due).
        const answered = () => {
          answeredParts.add(provider);
          if (!settled && candidates[next - 1] === provider) clearTimeout(hedgeTimer);
        };
        attempt(
          provider,
          controller.signal,
          Math.min(budgetMs, remaining),
          call,
          requestOptions.stampOf,
          answered,
        ).then(
          (value) => {
            if (settled) return;
            running.delete(provider);
            finish();
            recordSuccess(getProviderHealth(health, provider.key));
            if (requestOptions.stampOf) recordBestBlock(requestOptions.stampOf(value), health, deps.now());
            // Providers asked earlier that still have not answered were outrun: a strike towards cooldown.
            for (const [other, otherController] of running) {
              otherController.abort();
              if (candidates.indexOf(other) < candidates.indexOf(provider) && !answeredParts.has(other))
                fail(other, new RpcAttemptError('outrun', 'slower than a later provider'));
            }
            running.clear();
            resolve({ value, provider: provider.label });
          },
          (error: unknown) => {
            if (settled) return;
            running.delete(provider);
            fail(provider, error);
            // An error moves on at once instead of waiting for the hedge delay. When every candidate
            // has failed, the providers cooling down are asked together, each for at most two hedge
            // delays (a slow one answers within that; a hung one costs no more), before giving up.
            if (launch() || running.size > 0) return;
            candidates.push(...reserve.splice(0));
            let launched = false;
            while (launch(RESERVE_BUDGET_HEDGES * hedgeDelayMs)) launched = true;
            if (!launched) giveUp();
          },
        );
        clearTimeout(hedgeTimer);
        hedgeTimer = setTimeout(onHedge, hedgeDelayMs);
        return true;
      };
      const onHedge = () => {
        if (!settled) launch();
      };
      deadlineTimer = setTimeout(giveUp, deadlineMs);
      if (!launch()) giveUp();
    });
  }

  return { providers, request };
}

/**
 * Whether a batched attempt failed because the provider refuses batches rather than the calls: an
 * "invalid request" or a 4xx status for the whole batch, other than 429 (a rate limit) and 401 or
 * 403 (a key or a firewall, which a single request meets too). Asking once more singly costs one
 * request on a provider that is broken another way.
 */
function isBatchRefusal(error: unknown): boolean {
  const { kind, code } = classifyRpcError(error);
  if (kind === 'rpc-error') return code === -32600;
  if (kind !== 'http' || code === undefined || code < 400 || [401, 403, 429].includes(code)) return false;
  // dRPC's free tier answers a batch over its size limit with an HTTP 500 whose JSON-RPC error says so.
  return code < 500 || mentionsBatch(error);
}

/** Whether the error a provider sent with a failed HTTP answer (viem's `details`: the JSON-RPC error's message) speaks of batches. */
function mentionsBatch(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e instanceof HttpRequestError || e instanceof RpcRequestError) && /\bbatch/i.test(e.details))
      return true;
  }
  return false;
}

/** The `deps.state` key of a pool's per-process health. */
export function getPoolStateKey(name: string, chainId: number): string {
  return `rpc-pool:${name}:${chainId}`;
}
