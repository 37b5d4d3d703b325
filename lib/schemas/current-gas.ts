import { z } from '@hono/zod-openapi';
import type { CurrentGasReading } from '../services/current-gas';
import { type BodyOf, EnvelopeSchema } from './envelope';
import { WalletGasFieldsSchema } from './wallet-gas';

/** Low / average / high fee per gas in gwei (SPEC.md 2.2). */
export const GasTierSchema = z
  .object({
    low: z.number().positive().openapi({
      description: 'Economy tier (about the 70th-percentile priority fee), gwei.',
      example: 0.412,
    }),
    average: z
      .number()
      .positive()
      .openapi({ description: 'Standard tier (about the 90th percentile), gwei.', example: 0.6 }),
    high: z
      .number()
      .positive()
      .openapi({ description: 'Fast tier (about the 99th percentile), gwei.', example: 2.31 }),
  })
  .openapi('GasTier');

/** The `source` label format, documented once for every schema that carries it. */
export const SOURCE_DESCRIPTION =
  'Upstream that served the reading. A JSON-RPC provider is named by the name its operator gave it, else ' +
  'by a short label from its public host name (`publicnode`, `llamarpc`, `drpc`; `name#2` for a second URL ' +
  'at the same provider), else `rpc-N` (its place in the list) for a provider reached by address; never by ' +
  'its URL, address, port or key. `etherscan` is the block-explorer backstop, used ' +
  'when every RPC provider failed. `stale:<label>` (for example `stale:publicnode`) is the last good ' +
  'reading, at most 5 minutes old, served because no upstream gives a live reading right now; ' +
  "`stale:etherscan` may be the explorer's answer for a block older than a live one's, dated by that block.";

/**
 * GasTier plus the label of the upstream that served it (SPEC.md 2.3), plus the wallet-grade fields of
 * extension 16 (same reading, so no extra upstream read).
 */
export const CurrentGasSchema = GasTierSchema.extend({
  source: z.string().openapi({ description: SOURCE_DESCRIPTION, example: 'publicnode' }),
})
  .extend(WalletGasFieldsSchema.shape)
  .extend({
    walletFeesNote: z
      .string()
      .nullable()
      .openapi({
        description:
          'Null for a live reading. For a reading that is not live (a `stale:` source, or the reading a ' +
          'forecast was made from, served past its 30-s live window): its block and age, the full blocks that ' +
          'may have been mined since that block by the end of the 30 s the answer may be cached, and what that ' +
          'does to the wallet fields: each maxFeePerGas widened by those blocks.',
        example: null,
      }),
  })
  .openapi('CurrentGas');

/** Body of GET /api/gas: envelope + CurrentGas + the block and base fee the tiers were built on. */
export const GasResponseSchema = EnvelopeSchema.extend(CurrentGasSchema.shape)
  .extend({
    baseFee: z
      .number()
      .positive()
      .openapi({ description: 'Base fee of the next block, gwei (every tier includes it).', example: 0.298 }),
    blockNumber: z
      .number()
      .int()
      .positive()
      .openapi({ description: 'Newest block the reading covers.', example: 23_850_123 }),
    updatedAt: z.string().datetime().openapi({
      description: 'When the reading was taken from the upstream.',
      example: '2026-11-22T05:00:00.000Z',
    }),
  })
  .openapi('GasResponse');

export type CurrentGas = z.infer<typeof CurrentGasSchema>;
export type GasBody = BodyOf<typeof GasResponseSchema>;

/** Shapes a reading into the GET /api/gas body (also the get_current_gas result). */
export function toGasBody(reading: CurrentGasReading): GasBody {
  // The block's time is the service's own (it ages the wallet fields); the body dates the reading.
  const { blockTimestamp: _, walletFeesNote, ...body } = reading;
  return { ...body, walletFeesNote: walletFeesNote ?? null };
}

/**
 * Shapes a reading into the `currentGas` / `current` objects of the dashboard and the forecast: the
 * tiers, the source and the wallet-grade fields (same reading, no extra upstream read).
 */
export function toCurrentGas(reading: CurrentGasReading): CurrentGas {
  const { low, average, high, source, nextBaseFee, tiers, blobBaseFee, nextBlobBaseFee } = reading;
  const { blobGasUsedRatio, maxBlobsPerBlock, gasUsedRatio, baseFeeTrend, baseFeePercentile7d } = reading;
  const walletFeesNote = reading.walletFeesNote ?? null;
  return {
    low,
    average,
    high,
    source,
    nextBaseFee,
    tiers,
    blobBaseFee,
    nextBlobBaseFee,
    blobGasUsedRatio,
    maxBlobsPerBlock,
    gasUsedRatio,
    baseFeeTrend,
    baseFeePercentile7d,
    walletFeesNote,
  };
}
