import { z } from 'zod';
import {
  blobsArgument,
  COST_NETWORKS,
  enumArgument,
  gasLimitArgument,
  MIN_GAS_LIMIT,
  TIERS,
} from '../inputs';
import { defineTool } from '../tool';
import { estimateL2 } from './transaction-cost-l2';
import { estimateMainnet } from './transaction-cost-mainnet';

const FeeAmountSchema = z.object({
  wei: z
    .string()
    .regex(/^\d+$/)
    .describe(
      'Exact, in wei of the native token, as a decimal string (the numbers below keep about 15 digits).',
    ),
  gwei: z.number().nonnegative().describe('In gwei of the native token (1 gwei = 1e-9 ETH or POL).'),
  native: z.number().nonnegative().describe('In the native token (ETH, or POL on Polygon).'),
  usd: z.number().nonnegative().nullable().describe('In USD; null when no price source answered.'),
});

const gweiOrNull = (description: string) => z.number().nonnegative().nullable().describe(description);

export const transactionCostOutput = {
  network: z.enum(COST_NETWORKS),
  networkName: z.string(),
  nativeToken: z.enum(['ETH', 'POL']),
  gasLimit: z.number().int().min(MIN_GAS_LIMIT),
  tier: z.enum(TIERS).nullable().describe('Mainnet tier used; null on an L2, which has one gas price.'),
  gasPriceGwei: z.number().positive().describe('Fee per gas used, gwei of the native token.'),
  maxPriorityFeePerGas: gweiOrNull(
    "Priority fee per gas to send with, gwei: the tier's on mainnet; on an L2 the chain's own rule (Arbitrum " +
      '0, OP Stack its own tip market, Polygon at least 25 gwei). Null when unknown.',
  ),
  maxFeePerGas: gweiOrNull(
    "Max fee per gas to send with, gwei: on mainnet it covers the base fee for the tier's number of full " +
      'blocks (low 2, average 4, high 6); on an L2 2 x base fee + tip. Null when unknown.',
  ),
  expectedWaitSeconds: z
    .object({ p50: z.number().int().positive(), p90: z.number().int().positive() })
    .nullable()
    .describe('Mainnet: median and 90th-percentile time to inclusion at this tier, seconds; null on an L2.'),
  nativeUsd: z.number().positive().nullable(),
  execution: FeeAmountSchema.describe('gasLimit x gasPriceGwei: the most the execution costs at this price.'),
  l1DataFee: FeeAmountSchema.nullable().describe(
    'Optimism, Base: L1 data fee of a representative ETH transfer, paid in ETH. Arbitrum: its L1 component, ' +
      'l1GasUnits x the L2 base fee the NodeInterface returned with them (the fee Nitro charges gas at; an ' +
      "estimate including Nitro's 10 % padding of the L1 cost). Null elsewhere or when it could not be read or priced.",
  ),
  operatorFee: FeeAmountSchema.nullable().describe(
    'Optimism, Base: the operator fee (since Isthmus) of gasLimit gas, paid in ETH, exact to the wei: the ' +
      "GasPriceOracle's getOperatorFee(21000) for 21,000 gas, else its formula applied to gasLimit with the " +
      "chain's operator fee parameters. Charged on the gas limit and refunded down to the gas used, so an " +
      'upper bound; 0 while the operator sets none. Null elsewhere or when it could not be read or derived ' +
      '(total then excludes it, and notes and the summary say so).',
  ),
  l1GasUnits: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe(
      'Arbitrum: gas units its L1 component adds (NodeInterface.gasEstimateL1Component; when the call fails, ' +
        'its last good answer while at most 5 minutes old, and notes say when it was read); null elsewhere.',
    ),
  blobs: z.number().int().nonnegative().describe('Blobs priced (mainnet blob transaction); 0 otherwise.'),
  blobGasPriceGwei: gweiOrNull(
    'Blob base fee per blob gas the blobs are priced at (next block), gwei; null without blobs.',
  ),
  blobFee: FeeAmountSchema.nullable().describe(
    'blobs x 131,072 blob gas x blobGasPriceGwei; null without blobs.',
  ),
  total: FeeAmountSchema.nullable().describe(
    'execution + l1DataFee + operatorFee + blobFee; null when the L1 data fee or the blob fee applies but ' +
      'is unknown. An OP Stack operator fee that is unknown (operatorFee null) is left out, and the notes ' +
      'say so: it is 0 unless the chain operator sets one.',
  ),
  feeCompleteness: z
    .enum(['execution_only', 'full_estimate'])
    .describe(
      '`full_estimate` when total is known; on Optimism and Base it counts execution and the L1 data fee, as ' +
        "the API's feeCompleteness does, with the operator fee added when known. `execution_only` when a part " +
        'total needs is unknown (total is then null).',
    ),
  notes: z.array(z.string()).describe('What the figures include and how far to trust them.'),
  updatedAt: z.iso
    .datetime()
    .describe(
      "When the estimate's oldest part was read upstream: the gas price, or on an L2 a kept L1 data fee, operator fee or Arbitrum L1 component read before it.",
    ),
};

export type TransactionCostArgs = {
  gasLimit: number;
  network: (typeof COST_NETWORKS)[number];
  tier?: (typeof TIERS)[number] | undefined;
  blobs: number;
};

/** estimate_transaction_cost: a gas limit priced on mainnet (per tier) or an L2, in gwei, token and USD. */
export const transactionCostTool = defineTool({
  name: 'estimate_transaction_cost',
  title: 'Estimate a transaction cost',
  description:
    'Cost of a transaction using `gasLimit` gas (default 21,000, a plain transfer) on Ethereum mainnet at ' +
    'the low, average (default) or high tier, or on Arbitrum, Optimism, Base or Polygon at the current ' +
    'gas price: in gwei, in the native token (ETH; POL on Polygon) and in USD, with the ready-to-send ' +
    '`maxFeePerGas` / `maxPriorityFeePerGas` and (mainnet) the expected wait. On Optimism and Base the ' +
    'L1 data fee of a representative ETH transfer and the operator fee of the gas limit are added, on ' +
    'Arbitrum its L1 gas units, and on mainnet ' +
    '`blobs` prices a blob transaction; read `notes` for what each figure includes.',
  input: {
    gasLimit: gasLimitArgument,
    network: enumArgument('network', COST_NETWORKS, 'Network to price on (default mainnet).')
      .optional()
      .default('mainnet'),
    tier: enumArgument(
      'tier',
      TIERS,
      'Mainnet tier: low (economy), average (default) or high (fast).',
    ).optional(),
    blobs: blobsArgument,
  },
  output: transactionCostOutput,
  run: (deps, args) =>
    args.network === 'mainnet' ? estimateMainnet(deps, args) : estimateL2(deps, args, args.network),
});
