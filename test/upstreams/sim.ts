import type { FaultMode, FaultOptions } from './faults';
import type { RequestCounters } from './sim-server';

export type { FaultMode, FaultOptions } from './faults';
export type { RequestCounters, RequestRecord } from './sim-server';

/** What every simulator offers: its address, fault injection, request counters, reset and close. */
export interface Sim {
  readonly name: string;
  /** The base URL the app is configured with (origin plus the provider's base path or key). */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** Counts since the last reset: total requests and per JSON-RPC method (HTTP simulators: per route). */
  readonly requests: RequestCounters;
  /** Sets a fault until reset; awaiting is optional (for `refuse` it resolves once the port is closed). */
  fault(mode: FaultMode, options?: FaultOptions): Promise<void>;
  /** Clears faults, data overrides and counters; listens again after `refuse`. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** An HTTP (non-JSON-RPC) simulator. */
export type HttpSim = Sim;
