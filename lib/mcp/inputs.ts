import { z } from 'zod';
import { TIMEFRAMES } from '../schemas/forecast';
import { HISTORY_RANGES } from '../schemas/history';
import { L2_NETWORK_IDS } from '../schemas/l2-gas';

/** Networks `estimate_transaction_cost` prices: mainnet and the four L2s. */
export const COST_NETWORKS = ['mainnet', ...L2_NETWORK_IDS] as const;
/** Mainnet tiers a cost estimate may use. */
export const TIERS = ['low', 'average', 'high'] as const;
/** A plain ETH transfer: the default gas limit. */
export const DEFAULT_GAS_LIMIT = 21_000;
/**
 * The intrinsic gas every transaction pays before any calldata or code (mainnet and every L2 priced
 * here): a node refuses a gas limit under it ("intrinsic gas too low"), so no cheaper transaction exists.
 */
export const MIN_GAS_LIMIT = 21_000;
/** Mainnet's block gas limit has long sat near 30-45 M; one transaction above 30 M is a typo, not a plan. */
export const MAX_GAS_LIMIT = 30_000_000;
/** Mainnet's cap on one transaction's gas since Fusaka (EIP-7825: 2^24); a transaction above it is invalid. */
export const MAINNET_TX_GAS_CAP = 16_777_216;
/** Mainnet's cap on one transaction's blobs since Fusaka (EIP-7594), below the per-block maximum. */
export const MAINNET_TX_MAX_BLOBS = 6;

const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');
/** The longest echo of a bad argument in an error message (an argument may be up to a 64 KiB body). */
const MAX_SHOWN = 100;

/** A bad argument as the error message echoes it: as JSON, cut to MAX_SHOWN characters. */
function shown(input: unknown): string {
  if (input === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(input);
  } catch {
    // Nested too deep to serialise (a call stack's worth of arrays fits in a small body).
    text = Array.isArray(input) ? 'a deeply nested array' : 'a deeply nested object';
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text;
}

/**
 * Builds an enumerated tool argument whose error names the argument, what was given and every allowed
 * value, since an agent reads the message to correct its next call.
 */
export function enumArgument<const T extends readonly [string, ...string[]]>(
  name: string,
  values: T,
  description: string,
) {
  return z
    .enum(values, {
      error: (issue) => `${name} must be one of ${quoted(values)}; got ${shown(issue.input)}`,
    })
    .describe(description);
}

/**
 * Builds a tool's input object: unknown argument names are rejected (a misspelt `gas_limit` must not
 * silently become the default) with a message listing the accepted ones.
 */
export function inputObject<S extends z.ZodRawShape>(shape: S) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        const allowed = accepted.length
          ? `accepted arguments: ${accepted.join(', ')}`
          : 'this tool takes no arguments';
        return `unknown argument ${issue.keys.map((k) => `"${k}"`).join(', ')}; ${allowed}`;
      }
      if (issue.code === 'invalid_type') return `arguments must be an object; got ${shown(issue.input)}`;
      return undefined;
    },
  });
}

/** `timeframe` of the forecast tools, as /api/gas-predictions takes it. */
export const timeframeArgument = enumArgument(
  'timeframe',
  TIMEFRAMES,
  'Forecast horizon, hourly points from the next whole hour.',
)
  .optional()
  .default('24h');

/** `range` of get_gas_history, as /api/gas-history takes it. */
export const rangeArgument = enumArgument('range', HISTORY_RANGES, 'Window of stored history ending now.')
  .optional()
  .default('1d');

/** `gasLimit` of estimate_transaction_cost: a whole number of gas units. */
export const gasLimitArgument = z
  .number({ error: (issue) => `gasLimit must be a number of gas units; got ${shown(issue.input)}` })
  .int({ error: (issue) => `gasLimit must be a whole number of gas units; got ${shown(issue.input)}` })
  .min(MIN_GAS_LIMIT, {
    error: (issue) =>
      `gasLimit must be at least ${MIN_GAS_LIMIT.toLocaleString('en-US')}, the intrinsic gas every transaction ` +
      `pays (a node refuses less: "intrinsic gas too low"), and at most ${MAX_GAS_LIMIT.toLocaleString('en-US')}; ` +
      `got ${shown(issue.input)}`,
  })
  .max(MAX_GAS_LIMIT, {
    error: (issue) =>
      `gasLimit must be at most ${MAX_GAS_LIMIT.toLocaleString('en-US')}; got ${shown(issue.input)}`,
  })
  .optional()
  .default(DEFAULT_GAS_LIMIT)
  .describe(
    `Gas units the transaction uses (default ${DEFAULT_GAS_LIMIT}, a plain transfer; at least ${MIN_GAS_LIMIT}, the ` +
      `intrinsic gas every transaction pays; at most ${MAX_GAS_LIMIT}, and ` +
      `on mainnet at most ${MAINNET_TX_GAS_CAP}, the per-transaction cap since Fusaka, EIP-7825).`,
  );

/**
 * `blobs` of estimate_transaction_cost: blobs an EIP-4844 transaction carries (mainnet). The upper
 * bound is the chain's own per-block maximum, read live (see the tool), so only the shape is checked here.
 */
export const blobsArgument = z
  .number({ error: (issue) => `blobs must be a number of blobs; got ${shown(issue.input)}` })
  .int({ error: (issue) => `blobs must be a whole number of blobs; got ${shown(issue.input)}` })
  .min(0, {
    error: (issue) =>
      `blobs must be from 0 to the blobs one block can carry (read from the chain); got ${shown(issue.input)}`,
  })
  .optional()
  .default(0)
  .describe(
    'Blobs the transaction carries (EIP-4844, mainnet only; default 0): from 0 to 6, the most one transaction ' +
      'may carry since Fusaka (EIP-7594), and never above the per-block maximum the chain enforces now. Each ' +
      'blob is 131,072 blob gas priced at the next block blob base fee.',
  );
