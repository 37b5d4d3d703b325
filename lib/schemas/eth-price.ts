import { z } from '@hono/zod-openapi';
import type { PriceLabel, TokenPrice } from '../services/eth-price';
import { PRICE_SOURCES } from '../upstream/price-source';
import { EnvelopeSchema } from './envelope';

const PRICE_LABELS = [
  'cache',
  'aggregator',
  'exchange_a',
  'exchange_b',
  'stale-timeout',
  'stale-cooldown',
  'stale-error',
  'unavailable',
] as const satisfies readonly PriceLabel[];

const usd = z.number().positive().nullable().openapi({
  description: 'ETH price in USD; null when no source answered and no last-known-good value is available.',
  example: 3012.45,
});
const change24h = z.number().nullable().openapi({
  description: '24-hour change in percent (2.5 means +2.5 %); null when the source does not give it.',
  example: -1.83,
});
const sparkline7d = z.array(z.number()).openapi({
  description:
    '168 hourly USD prices of the last 7 days, oldest first, always from the aggregator (CoinGecko); the last ' +
    'one it gave when only an exchange answers, else empty.',
});
const updatedAt = z
  .string()
  .datetime()
  .openapi({
    description:
      "When the served quote is from: CoinGecko's `last_updated`, or an exchange's answer less the time a cache " +
      'held it. When `usd` is null: when the last attempt to read a price failed (with none on record, when the ' +
      'service last looked for one).',
    example: '2026-11-22T05:00:00.000Z',
  });

/** The price endpoint's body (SPEC.md 2.7 with decisions 2 and 3). */
export const EthPriceSchema = EnvelopeSchema.extend({
  usd,
  change_24h: change24h,
  sparkline_7d: sparkline7d,
  updatedAt,
  priceSource: z
    .enum(PRICE_SOURCES)
    .nullable()
    .openapi({
      description:
        'Upstream the served `usd` came from: `aggregator` (CoinGecko), `exchange_a` (Coinbase), `exchange_b` ' +
        '(Kraken). Also set for `cache` and `stale-*` answers; null when `usd` is null.',
    }),
  source: z.enum(PRICE_LABELS).openapi({
    description:
      '`aggregator`/`exchange_a`/`exchange_b`: read live just now. `cache`: from the 30-second in-process cache. ' +
      '`stale-timeout`: sources ran out of time; `stale-error`: sources answered with errors or unusable data; ' +
      '`stale-cooldown`: sources failed recently and were not asked. Stale values are at most 5 minutes old. ' +
      '`unavailable`: no price (`usd` null, HTTP 200).',
  }),
  staleAgeMs: z.number().int().nonnegative().optional().openapi({
    description:
      'Milliseconds since the served quote is from (`updatedAt`); present only on `stale-*` labels.',
    example: 42_000,
  }),
}).openapi('EthPrice');

/** The dashboard's `ethPrice` field (SPEC.md 2.8). */
export const EthPriceCompactSchema = z
  .object({ usd, change_24h: change24h, updatedAt })
  .openapi('EthPriceCompact');

export type EthPriceBody = Omit<z.infer<typeof EthPriceSchema>, 'citation' | 'tier'>;
export type EthPriceCompact = z.infer<typeof EthPriceCompactSchema>;

/** Shapes a service price into the EthPrice fields (without the envelope), for REST and MCP alike. */
export function toEthPriceBody(price: TokenPrice): EthPriceBody {
  return {
    usd: price.usd,
    change_24h: price.change24h,
    sparkline_7d: price.sparkline7d,
    updatedAt: new Date(price.updatedAt).toISOString(),
    priceSource: price.priceSource,
    source: price.source,
    ...(price.staleAgeMs !== undefined ? { staleAgeMs: price.staleAgeMs } : {}),
  };
}

/** Shapes a service price into the dashboard's compact form. */
export function toEthPriceCompact(price: TokenPrice): EthPriceCompact {
  return { usd: price.usd, change_24h: price.change24h, updatedAt: new Date(price.updatedAt).toISOString() };
}
