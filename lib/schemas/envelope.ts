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

/**
 * A response body less its envelope: what a `to<Resource>Body` mapper beside each schema builds from
 * a service's domain object. The endpoint adds the envelope; the MCP tool of the same resource reuses
 * the mapper, so each body is assembled in exactly one place.
 */
export type BodyOf<S extends z.ZodType> = Omit<z.infer<S>, 'citation' | 'tier'>;
