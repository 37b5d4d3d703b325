import { z } from '@hono/zod-openapi';
import { EnvelopeSchema } from './envelope';
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
  'Upstream that served the reading. A JSON-RPC provider is named by a short label derived from its host ' +
  '(`publicnode`, `llamarpc`, `drpc`; `host:port` for an IP address or localhost; `name#2` for a second ' +
  'URL at the same provider), never by its URL or key. `etherscan` is the block-explorer backstop, used ' +
  'when every RPC provider failed. `stale:<label>` (for example `stale:publicnode`) is the last good ' +
  'reading, at most 5 minutes old, served because every upstream is failing right now.';

/**
 * GasTier plus the label of the upstream that served it (SPEC.md 2.3), plus the wallet-grade fields of
 * extension 16 (same reading, so no extra upstream read).
 */
export const CurrentGasSchema = GasTierSchema.extend({
  source: z.string().openapi({ description: SOURCE_DESCRIPTION, example: 'publicnode' }),
})
  .extend(WalletGasFieldsSchema.shape)
  .openapi('CurrentGas');

/** The CurrentGas object of a reading: what the dashboard and gas-predictions serve as current gas. */
export function presentCurrentGas<T extends z.infer<typeof CurrentGasSchema>>(
  reading: T,
): z.infer<typeof CurrentGasSchema> {
  const { low, average, high, source, nextBaseFee, tiers, blobBaseFee, nextBlobBaseFee } = reading;
  const { blobGasUsedRatio, maxBlobsPerBlock, gasUsedRatio, baseFeeTrend, baseFeePercentile7d } = reading;
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
  };
}

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
