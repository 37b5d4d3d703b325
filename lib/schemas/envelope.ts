import { z } from '@hono/zod-openapi';

/** The envelope of every 200 body (SPEC.md 2.1). */
export const EnvelopeSchema = z.object({
  citation: z.string().openapi({
    description: 'Attribution naming the service; ends with `updated <ISO-8601 time of the data served>`.',
    example:
      'Data from Gas Fee API (https://gas.example.org), free public Ethereum gas data, updated 2026-11-22T05:00:00.000Z',
  }),
  tier: z.literal('free').openapi({ description: 'Always `free` at present.' }),
});
