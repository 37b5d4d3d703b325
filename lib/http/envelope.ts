/** The envelope fields every 200 body of a REST endpoint carries (SPEC.md 2.1). */
export interface Envelope {
  citation: string;
  tier: 'free';
}

export const SERVICE_NAME = 'Gas Fee API';

/** Builds the envelope; the citation names the service and ends with the time of the data served. */
export function buildEnvelope(updatedAt: Date | number | string, baseUrl: string): Envelope {
  const iso = new Date(updatedAt).toISOString();
  return {
    citation: `Data from ${SERVICE_NAME} (${baseUrl}), free public Ethereum gas data, updated ${iso}`,
    tier: 'free',
  };
}

/** The base address for citations: the configured public URL, else the origin the request came to. */
export function publicBaseUrl(configured: string | undefined, requestUrl: string): string {
  return configured ?? new URL(requestUrl).origin;
}
