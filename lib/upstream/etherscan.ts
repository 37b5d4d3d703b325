import { z } from 'zod';
import type { AppDeps } from '../deps';
import { assertSaneTiers } from '../oracle/sanity';
import { fetchJsonWithin, HttpJsonError } from './http-json';

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

/** Why the explorer could not serve; carries no URL, key or upstream message. */
export class EtherscanError extends Error {
  override name = 'EtherscanError';
  constructor(readonly kind: 'timeout' | 'network' | 'http' | 'malformed' | 'refused' | 'absurd' | 'stale') {
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
  const url = new URL(deps.config.etherscan.url);
  url.searchParams.set('chainid', '1');
  url.searchParams.set('module', 'gastracker');
  url.searchParams.set('action', 'gasoracle');
  if (deps.config.etherscan.apiKey) url.searchParams.set('apikey', deps.config.etherscan.apiKey);
  const body = await fetchJson(deps.fetch, url.toString(), timeoutMs);
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

/** GETs JSON within `timeoutMs` (see `fetchJsonWithin`); an oversized body counts as malformed. */
async function fetchJson(fetchFn: typeof fetch, url: string, timeoutMs: number): Promise<unknown> {
  try {
    return await fetchJsonWithin(fetchFn, url, timeoutMs);
  } catch (error) {
    if (!(error instanceof HttpJsonError)) throw error;
    throw new EtherscanError(error.kind === 'too-large' ? 'malformed' : error.kind);
  }
}
