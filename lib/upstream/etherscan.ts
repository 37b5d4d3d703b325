import { z } from 'zod';
import { MAX_FUTURE_SKEW_MS } from '../clock';
import type { Config } from '../config';
import type { AppDeps } from '../deps';
import { assertSaneTiers } from '../oracle/sanity';
import { fetchJsonWithin, HttpJsonError } from './http-json';
import { computeMainnetBlockCeiling, computeMainnetHeadFloor } from './rpc-mainnet-gas';

/** The `source` label of a reading served by the explorer backstop. */
export const ETHERSCAN_SOURCE = 'etherscan';

/** Tiers from the Etherscan v2 gas oracle, mapped per SPEC.md decision 4, gwei as sent (up to 9 decimals). */
export interface EtherscanGasReading {
  low: number;
  average: number;
  high: number;
  baseFee: number;
  blockNumber: number;
  source: typeof ETHERSCAN_SOURCE;
  /** The gas used / gas limit of its last few blocks (`gasUsedRatio`), or null when absent or unusable. */
  gasUsedRatios: number[] | null;
}

/**
 * Why the explorer could not serve, or could not give its block's time; carries no URL, key or
 * upstream message. `missing`: the proxy's node has no such block (yet); `wrong-block`: it answered
 * for another one.
 */
export class EtherscanError extends Error {
  override name = 'EtherscanError';
  constructor(
    readonly kind:
      | 'timeout'
      | 'network'
      | 'http'
      | 'malformed'
      | 'refused'
      | 'absurd'
      | 'stale'
      | 'missing'
      | 'wrong-block',
  ) {
    super(`etherscan ${kind}`);
  }
}

const decimal = z
  .string()
  .regex(/^\s*\d+(\.\d+)?\s*$/)
  .transform(Number);

/** A comma-separated list of ratios in [0, 1], as Etherscan sends `gasUsedRatio`. */
const RatioListSchema = z
  .string()
  .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/)
  .transform((list) => list.split(',').map(Number))
  .pipe(z.array(z.number().min(0).max(1)).min(1));

const GasOracleSchema = z.object({
  status: z.literal('1'),
  result: z.object({
    LastBlock: z.string().regex(/^\d+$/).transform(Number),
    SafeGasPrice: decimal,
    ProposeGasPrice: decimal,
    FastGasPrice: decimal,
    suggestBaseFee: decimal,
    gasUsedRatio: z.unknown().optional(),
  }),
});

/**
 * Reads the Etherscan v2 gas oracle for mainnet (`chainid=1`, key optional): SafeGasPrice -> low,
 * ProposeGasPrice -> average, FastGasPrice -> high, suggestBaseFee -> baseFee, LastBlock ->
 * blockNumber. The answer must have status "1", numeric fields, ordered positive tiers below the
 * sanity ceiling and (when `minBlock` is given) a LastBlock not behind it, else an EtherscanError is
 * thrown. The key is only ever in the request URL.
 */
export async function readEtherscanGas(
  deps: Pick<AppDeps, 'config' | 'fetch'>,
  options: { timeoutMs?: number; minBlock?: number } = {},
): Promise<EtherscanGasReading> {
  const timeoutMs = options.timeoutMs ?? deps.config.upstreamTimeoutMs;
  const url = explorerUrl(deps.config, { module: 'gastracker', action: 'gasoracle' });
  const body = await fetchJson(deps.fetch, url, timeoutMs);
  const status = (body as { status?: unknown } | null)?.status;
  if (status === '0') throw new EtherscanError('refused');
  const parsed = GasOracleSchema.safeParse(body);
  if (!parsed.success) throw new EtherscanError('malformed');
  const r = parsed.data.result;
  const reading = {
    low: r.SafeGasPrice,
    average: r.ProposeGasPrice,
    high: r.FastGasPrice,
    baseFee: r.suggestBaseFee,
  };
  try {
    assertSaneTiers(reading);
  } catch {
    throw new EtherscanError('absurd');
  }
  if (!(r.LastBlock > 0)) throw new EtherscanError('absurd');
  // Etherscan gives no timestamp; a LastBlock behind the given floor (what RPC providers already
  // served, or what the clock allows) means a stale backend.
  if (options.minBlock !== undefined && r.LastBlock < options.minBlock) throw new EtherscanError('stale');
  // Optional: a missing or broken ratio list costs only the fields built on it, never the reading.
  const ratios = RatioListSchema.safeParse(r.gasUsedRatio);
  return {
    ...reading,
    blockNumber: r.LastBlock,
    source: ETHERSCAN_SOURCE,
    gasUsedRatios: ratios.success ? ratios.data : null,
  };
}

/** A hex quantity as JSON-RPC sends it, within the integers a double holds exactly. */
const quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,13}$/)
  .transform((hex) => Number.parseInt(hex, 16));

/** The proxy's answer: the node's JSON-RPC one, a block (only its number and time are read) or null. */
const ProxyBlockSchema = z.object({
  result: z.object({ number: quantity, timestamp: quantity }).nullable(),
});

/**
 * Reads the time (Unix seconds) of mainnet block `blockNumber` from the Etherscan v2 proxy
 * (`module=proxy&action=eth_getBlockByNumber`, the block without its transactions), for the gas
 * oracle's LastBlock, which carries none. The block must be the one asked for, and its time possible
 * for its number (the bounds the RPC providers' heads are held to: rpc-mainnet-gas.ts) and not further
 * in the future than clocks drift, else an EtherscanError is thrown: `refused` for a rate limit or a
 * key error (a message as the result, or the API's `status` "0") or the node's error, `missing` for
 * no block, `wrong-block`, `absurd`, or the transport's kind. The key is only ever in the request URL.
 */
export async function readEtherscanBlockTime(
  deps: Pick<AppDeps, 'config' | 'fetch' | 'now'>,
  blockNumber: number,
  options: { timeoutMs?: number } = {},
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? deps.config.upstreamTimeoutMs;
  const url = explorerUrl(deps.config, {
    module: 'proxy',
    action: 'eth_getBlockByNumber',
    tag: `0x${blockNumber.toString(16)}`,
    boolean: 'false',
  });
  const body = (await fetchJson(deps.fetch, url, timeoutMs)) as {
    status?: unknown;
    error?: unknown;
    result?: unknown;
  } | null;
  // The proxy's rate limit comes as a JSON-RPC envelope whose result is the message
  // ({"jsonrpc":"2.0","id":1,"result":"Max calls per sec rate limit reached (5/sec)"}), a key error
  // possibly in the API's own shape ("status":"0"), the node's error as JSON-RPC's: none is a block.
  const refused =
    body?.status === '0' ||
    typeof body?.result === 'string' ||
    (body?.error !== undefined && body?.error !== null);
  if (refused) throw new EtherscanError('refused');
  const parsed = ProxyBlockSchema.safeParse(body);
  if (!parsed.success) throw new EtherscanError('malformed');
  const block = parsed.data.result;
  if (block === null) throw new EtherscanError('missing');
  if (block.number !== blockNumber) throw new EtherscanError('wrong-block');
  const { timestamp } = block;
  const possible =
    timestamp * 1000 <= deps.now() + MAX_FUTURE_SKEW_MS &&
    BigInt(blockNumber) <= computeMainnetBlockCeiling(timestamp) &&
    blockNumber >= (computeMainnetHeadFloor(timestamp * 1000) ?? 0);
  if (!possible) throw new EtherscanError('absurd');
  return timestamp;
}

/** The v2 API's URL for mainnet (`chainid=1`) with these parameters, and the key when one is configured. */
function explorerUrl(config: Pick<Config, 'etherscan'>, params: Record<string, string>): string {
  const url = new URL(config.etherscan.url);
  url.searchParams.set('chainid', '1');
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (config.etherscan.apiKey) url.searchParams.set('apikey', config.etherscan.apiKey);
  return url.toString();
}

/** GETs JSON within `timeoutMs` (see `fetchJsonWithin`); an oversized body counts as malformed. */
async function fetchJson(fetchFn: typeof fetch, url: string, timeoutMs: number): Promise<unknown> {
  try {
    return await fetchJsonWithin(fetchFn, url, timeoutMs);
  } catch (error) {
    if (!(error instanceof HttpJsonError)) throw error;
    throw new EtherscanError(error.kind === 'too-large' ? 'malformed' : error.kind);
  }
}
