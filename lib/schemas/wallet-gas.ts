import { z } from '@hono/zod-openapi';

const gwei = (description: string, example: number) =>
  z
    .number()
    .nonnegative()
    .openapi({ description: `${description} Gwei, exact to 1 wei (9 decimals).`, example });

const WaitSchema = z
  .object({
    p50: z
      .number()
      .int()
      .positive()
      .openapi({ description: 'Median time to inclusion, seconds.', example: 12 }),
    p90: z
      .number()
      .int()
      .positive()
      .openapi({ description: '90th-percentile time to inclusion, seconds.', example: 24 }),
  })
  .nullable()
  .openapi({
    description:
      'Time to inclusion of a transaction paying this tier, in 12-second slots, from a replay of the last ' +
      "20 non-empty blocks: a block takes the transaction when its 1st-percentile tip was below the tier's " +
      'tip (or equal to it in a block with room left). Waits are pooled over every starting block, the ' +
      'latest weighing most (half-life 8 blocks), so runs of busy blocks lengthen the tail as they did on ' +
      'chain. Null when served by the explorer backstop. From a reading that is not live, as read (see walletFeesNote).',
  });

const WalletTierSchema = z
  .object({
    maxPriorityFeePerGas: gwei(
      'Priority fee (tip) per gas this tier pays: the median over the last 20 non-empty blocks of the ' +
        "tier's reward percentile (70th / 90th / 99th).",
      0.1,
    ),
    maxFeePerGas: gwei(
      "Max fee per gas: the base fee after the tier's number of consecutive full blocks (low 2, average 4, " +
        'high 6; each full block raises it 12.5 %, a few wei more under an odd gas limit) plus ' +
        'maxPriorityFeePerGas, so the transaction still pays ' +
        'its whole tip that long. Always >= nextBaseFee + maxPriorityFeePerGas; unused headroom is refunded. ' +
        "From a reading that is not live (a `stale:` source, or a forecast's reading past its 30-s live window) " +
        "it is widened by every full block that may have been mined since the reading's block, by the end of " +
        "the 30 s the answer may be cached (12-s slots, counted up), so it covers the tier's blocks from the " +
        'moment it is used, however wide that makes it (see walletFeesNote).',
      0.52,
    ),
    estimatedWaitSeconds: WaitSchema,
  })
  .openapi('WalletTier');

/** The wallet-grade fields of a mainnet reading (SPEC.md extension 16), additive on CurrentGas. */
export const WalletGasFieldsSchema = z.object({
  nextBaseFee: gwei('Base fee of the next block, exact per EIP-1559 from the latest block.', 0.298123456),
  tiers: z.object({ low: WalletTierSchema, average: WalletTierSchema, high: WalletTierSchema }).openapi({
    description:
      'Ready-to-send EIP-1559 fee pairs per tier; low <= average <= high in every fee field, waits the other way.',
  }),
  blobBaseFee: gwei('EIP-4844 blob base fee per blob gas of the latest block.', 0.010572373)
    .nullable()
    .openapi({
      description:
        'Blob base fee of the latest block (eth_feeHistory), gwei per blob gas; null when the provider gives no blob data.',
    }),
  nextBlobBaseFee: gwei('Blob base fee of the next block.', 0.010812244)
    .nullable()
    .openapi({
      description:
        'Blob base fee of the next block (eth_feeHistory, cross-checked with eth_blobBaseFee), gwei per blob ' +
        'gas: what a blob sent now pays per blob gas (131,072 per blob). The node applies the current fork ' +
        '(EIP-7918 reserve price, blob-parameter-only forks); null when the provider gives no blob data.',
    }),
  blobGasUsedRatio: z.number().min(0).max(1).nullable().openapi({
    description:
      'Mean blob gas used / maximum blob gas per block over the last 20 blocks, 0 to 1; null without blob data.',
    example: 0.33,
  }),
  maxBlobsPerBlock: z
    .number()
    .int()
    .positive()
    .nullable()
    .openapi({
      description:
        "Blobs one block can carry under the chain's current rules, derived from the latest block's blob gas " +
        'and its usage ratio; null when that block carried no blob or the provider gives no blob data.',
      example: 21,
    }),
  gasUsedRatio: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .openapi({
      description:
        'Mean gas used / gas limit over the last 20 blocks, 0 to 1 (0.5 is the EIP-1559 target); from the explorer ' +
        'backstop, over the last blocks it lists, or null when it lists none.',
      example: 0.52,
    }),
  baseFeeTrend: z
    .enum(['rising', 'falling', 'flat'])
    .nullable()
    .openapi({
      description:
        'Next base fee against the median base fee of the last 20 blocks: more than 5 % above `rising`, more than ' +
        '5 % below `falling`, else `flat`; from the explorer backstop, the next base fee against the one before the ' +
        'blocks it lists (their EIP-1559 steps compounded), or null when it lists none.',
    }),
  baseFeePercentile7d: z
    .number()
    .min(0)
    .max(100)
    .nullable()
    .openapi({
      description:
        'Where the current base fee ranks among the base fees stored over the last 7 days, 0 (cheapest) to 100 ' +
        '(dearest), mid-rank for ties; null with less than a day stored or when the store cannot be read.',
      example: 37.5,
    }),
});

export type WalletGasFields = z.infer<typeof WalletGasFieldsSchema>;
