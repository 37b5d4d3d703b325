/**
 * Fault modes shared by every simulator. A fault is set per server (per RPC provider) and stays until
 * `reset()`; `methods` narrows it to some JSON-RPC methods (or, on the HTTP simulators, route names)
 * and `times` to the next N matching requests. Transport faults (refuse, hang, http-500, http-429,
 * malformed) replace one another; delay and the data faults combine with anything.
 */
export type FaultMode =
  /** Stop listening: connections get ECONNREFUSED until reset, which listens again on the same port. */
  | 'refuse'
  /** Accept and never answer; the socket is destroyed on reset or close. */
  | 'hang'
  /** Answer after `ms` milliseconds (default 1000). */
  | 'delay'
  /** HTTP 500 with the provider's error body. */
  | 'http-500'
  /** HTTP 403 with an HTML page, as an edge firewall in front of a provider answers a request it blocks. */
  | 'http-403'
  /** HTTP 429 with `Retry-After` (`retryAfter` seconds, default 30) and the provider's real 429 body. */
  | 'http-429'
  /** HTTP 200 with a body that is not valid JSON (`body`, default: the real answer cut in half). */
  | 'malformed'
  /** JSON-RPC error object (`code`, default -32005 'limit exceeded'); HTTP simulators: their API error body. */
  | 'rpc-error'
  /** `eth_chainId` / `net_version` answer another chain (`chainId`; default Sepolia, or 1 on an L2). */
  | 'wrong-chain'
  /**
   * The head block's timestamp is `seconds` (default 600) old; CoinGecko's `last_updated` likewise;
   * Coinbase and Kraken (whose bodies carry no time) answer with `Age: seconds`, as from a cache;
   * Etherscan's backend (gas oracle or proxy, by route) is stuck that many 12-s slots back.
   */
  | 'stale'
  /**
   * The head block number is `blocks` (default 10) behind the other providers; Etherscan's LastBlock
   * likewise, and its proxy's node, which then answers `null` for a block above its head.
   */
  | 'lag'
  /** Absurd values: `value` (wei for RPC, default 1e16 = 1e7 gwei; USD for prices, default 1e9). */
  | 'absurd'
  /** JSON-RPC only: a batch is answered with one "batch requests are not supported" error for the whole batch. */
  | 'no-batch'
  /**
   * JSON-RPC only: a batch of more than `max` calls (default 3) is refused as dRPC's free tier refuses
   * it: HTTP 500 with one JSON-RPC error, code 31, for the whole batch; smaller batches are answered.
   */
  | 'batch-limit';

export interface FaultOptions {
  /** Only requests carrying one of these JSON-RPC methods (or HTTP route names) are affected. */
  methods?: string[];
  /** Only the next N matching requests are affected, then the fault clears itself. */
  times?: number;
  /** `delay`: milliseconds before the answer. */
  ms?: number;
  /** `http-429`: seconds in `Retry-After`. */
  retryAfter?: number;
  /** `malformed`: the exact body to send instead of the truncated answer. */
  body?: string;
  /** `rpc-error`: JSON-RPC error code. */
  code?: number;
  /** `rpc-error`: error message (HTTP simulators: the provider's error text). */
  message?: string;
  /** `wrong-chain`: the chain id to report. */
  chainId?: number;
  /** `stale`: age of the head block (or price reading) in seconds. */
  seconds?: number;
  /** `lag`: how many blocks behind. */
  blocks?: number;
  /** `absurd`: the value to report (wei as bigint for RPC, USD as number for prices). */
  value?: bigint | number;
  /** `batch-limit`: the most calls a batch may carry. */
  max?: number;
}

interface ActiveFault {
  options: FaultOptions;
  remaining: number | undefined;
}

/** The faults currently set on one simulator, with per-method filters and use counts. */
export class FaultSet {
  private readonly active = new Map<FaultMode, ActiveFault>();

  /** Sets (or replaces) a fault. */
  set(mode: FaultMode, options: FaultOptions = {}): void {
    this.active.set(mode, { options, remaining: options.times });
  }

  /** Clears one fault. */
  delete(mode: FaultMode): void {
    this.active.delete(mode);
  }

  /** Clears every fault. */
  clear(): void {
    this.active.clear();
  }

  /** Whether a fault of this mode is set, whatever its filter. */
  has(mode: FaultMode): boolean {
    return this.active.has(mode);
  }

  /**
   * The options of a fault of this mode that applies to a request carrying any of `keys`, consuming one
   * of its `times`; undefined when none applies.
   */
  take(mode: FaultMode, keys: readonly string[]): FaultOptions | undefined {
    const fault = this.active.get(mode);
    if (!fault) return undefined;
    const filter = fault.options.methods;
    if (filter && !keys.some((key) => filter.includes(key))) return undefined;
    if (fault.remaining !== undefined) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.active.delete(mode);
    }
    return fault.options;
  }
}
