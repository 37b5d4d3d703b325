import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { OracleError } from '../oracle/fee-history';

/** How one provider attempt failed; the only failure detail that reaches logs. */
export type RpcFailureKind =
  | 'timeout'
  | 'network'
  | 'http'
  | 'rate-limited'
  | 'rpc-error'
  | 'malformed'
  | 'wrong-chain'
  | 'stale'
  | 'lag'
  | 'absurd'
  | 'outrun';

/** A provider answer rejected by our own checks (wrong chain, stale block, lagging, absurd values). */
export class RpcAttemptError extends Error {
  override name = 'RpcAttemptError';
  constructor(
    readonly kind: RpcFailureKind,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** One failed attempt: which provider (label only) and why, safe to log and to put in an error. */
export interface RpcFailure {
  provider: string;
  kind: RpcFailureKind;
  /** HTTP status or JSON-RPC error code when there is one. */
  code?: number;
}

/** Every provider of a pool failed (or none could be asked in time). */
export class RpcPoolError extends Error {
  override name = 'RpcPoolError';
  constructor(
    readonly pool: string,
    readonly failures: RpcFailure[],
  ) {
    super(
      `${pool}: no provider answered (${failures.map((f) => `${f.provider} ${f.kind}`).join(', ') || 'none'})`,
    );
  }
}

/**
 * Classifies whatever an attempt threw into a failure kind (and code), reading only types and
 * numbers: viem's messages embed the request URL, which may carry an API key, so they are never kept.
 */
export function classifyRpcError(error: unknown): {
  kind: RpcFailureKind;
  code?: number;
  retryAfterMs?: number;
} {
  if (error instanceof RpcAttemptError) return { kind: error.kind };
  if (error instanceof OracleError) return { kind: 'absurd' };
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TimeoutError) return { kind: 'timeout' };
    // Providers often wrap a non-2xx answer in a JSON-RPC error body; the HTTP status says more.
    if (
      (e instanceof HttpRequestError || e instanceof RpcRequestError) &&
      e.status !== undefined &&
      e.status >= 400
    ) {
      if (e.status !== 429) return { kind: 'http', code: e.status };
      const retryAfterMs = parseRetryAfter(e.headers?.get('retry-after'));
      return retryAfterMs === undefined
        ? { kind: 'rate-limited', code: 429 }
        : { kind: 'rate-limited', code: 429, retryAfterMs };
    }
    if (e instanceof HttpRequestError) {
      // viem's own complaint about a batch answered with the wrong shape is a malformed answer too.
      const malformed =
        e.cause instanceof SyntaxError ||
        /^Expected \d+ responses/.test((e.cause as Error | undefined)?.message ?? '');
      return malformed ? { kind: 'malformed' } : { kind: 'network' };
    }
    if (e instanceof RpcRequestError) return { kind: 'rpc-error', code: e.code };
    if (e instanceof Error && e.name === 'AbortError') return { kind: 'timeout' };
  }
  // Anything else came from decoding the answer (a missing field, a non-hex number).
  return { kind: 'malformed' };
}

/** A `Retry-After` header (seconds, or an HTTP date) as milliseconds from now, when it says one. */
function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
