import { z } from '@hono/zod-openapi';
import type { GasHistory } from '../services/gas-history';
import type { L2GasHistory } from '../services/l2-gas-history';
import { type BodyOf, EnvelopeSchema } from './envelope';

/** Allowed `range` values of /api/gas-history (SPEC 4.1). */
export const HISTORY_RANGES = ['10m', '30m', '2h', '6h', '1d', '7d', '30d'] as const;

/** Allowed `network` values of /api/l2-gas-history (SPEC 4.1). */
export const L2_HISTORY_NETWORKS = ['arbitrum', 'optimism', 'base', 'polygon'] as const;

/** Allowed `hours` values of /api/l2-gas-history, as they appear in the query string (SPEC 4.1). */
export const L2_HISTORY_HOURS = ['1', '6', '24', '168'] as const;

/** One bucket of mainnet history (SPEC 2.9); also the shape of hourly history items elsewhere. */
export const HistoryPointSchema = z
  .object({
    timestamp: z.iso
      .datetime()
      .openapi({ description: 'Start of the bucket (UTC), a whole multiple of its size.' }),
    gasPrice: z.number().openapi({
      description: 'Mean of the stored average tier in the bucket (gwei), rounded to the wei (9 decimals).',
    }),
  })
  .openapi('HistoryPoint');

/** Body of GET /api/gas-history (SPEC 2.9, decision 9). */
export const GasHistoryResponseSchema = EnvelopeSchema.extend({
  range: z.enum(HISTORY_RANGES).openapi({ description: 'Echo of the requested range.' }),
  points: z
    .array(HistoryPointSchema)
    .openapi({ description: 'Bucketed averages, oldest first; at most 300.' }),
  meta: z.object({
    requestedRange: z.enum(HISTORY_RANGES),
    renderedRangeStart: z.iso
      .datetime()
      .nullable()
      .openapi({ description: 'First bucket time; null when empty.' }),
    renderedRangeEnd: z.iso
      .datetime()
      .nullable()
      .openapi({ description: 'Last bucket time; null when empty.' }),
    pointCount: z.number().int().nonnegative(),
    bucketSeconds: z.number().int().positive().openapi({
      description:
        'Bucket size: the smallest of 90 s, 3, 6, 15, 30 min, 1, 2, 3, 6, 12 h, 1 d keeping 300 points or fewer.',
    }),
    source: z
      .literal('snapshots')
      .openapi({ description: 'Always `snapshots`: the stored 90-second readings.' }),
  }),
}).openapi('GasHistoryResponse');

/** One raw stored L2 sample (SPEC 2.11). */
export const L2HistoryPointSchema = z
  .object({
    timestamp: z.iso
      .datetime()
      .openapi({ description: 'Start of the 90-second slot the sample belongs to (UTC).' }),
    gas_price_gwei: z.number().nonnegative(),
    execution_gas_cost_usd: z
      .number()
      .nonnegative()
      .openapi({ description: 'Cost of a 21,000-gas transfer at that gas price, in USD.' }),
  })
  .openapi('L2HistoryPoint');

/** Body of GET /api/l2-gas-history (SPEC 2.11, decision 11). */
export const L2GasHistoryResponseSchema = EnvelopeSchema.extend({
  network: z.enum(L2_HISTORY_NETWORKS),
  hours: z.number().int().openapi({ example: 24 }),
  points: z.array(L2HistoryPointSchema).openapi({
    description: 'Raw 90-second samples of the last `hours` hours, oldest first (about 960 for 24).',
  }),
}).openapi('L2GasHistoryResponse');

export type GasHistoryBody = BodyOf<typeof GasHistoryResponseSchema>;
export type L2GasHistoryBody = BodyOf<typeof L2GasHistoryResponseSchema>;

/** Shapes a history read as SPEC 2.9 describes it: ISO points, oldest first, and their `meta`. */
export function toGasHistoryBody(history: GasHistory): GasHistoryBody {
  const points = history.buckets.map((b) => ({
    timestamp: new Date(b.time).toISOString(),
    gasPrice: b.gasPrice,
  }));
  return {
    range: history.range,
    points,
    meta: {
      requestedRange: history.range,
      renderedRangeStart: points[0]?.timestamp ?? null,
      renderedRangeEnd: points.at(-1)?.timestamp ?? null,
      pointCount: points.length,
      bucketSeconds: history.bucketSeconds,
      source: 'snapshots',
    },
  };
}

/** Shapes raw L2 samples as SPEC 2.11 describes them, oldest first. */
export function toL2GasHistoryBody(history: L2GasHistory): L2GasHistoryBody {
  return {
    network: history.network,
    hours: history.hours,
    points: history.samples.map((s) => ({
      timestamp: new Date(s.time).toISOString(),
      gas_price_gwei: s.gasPriceGwei,
      execution_gas_cost_usd: s.executionGasCostUsd,
    })),
  };
}
