/**
 * The domain errors services, stores, upstream clients and jobs raise to their callers. They speak the
 * domain, not HTTP: exactly two places translate them, the app's `onError` (problem+json, through
 * `problemFromDomainError`) and the MCP tool layer (`isError` results). Their texts are written for
 * the API's users and never carry an upstream URL, address or key.
 */
export abstract class DomainError extends Error {
  /** A short, stable summary of the failure, e.g. `Gas data unavailable`. */
  abstract readonly summary: string;
}

/** Something a caller asked for cannot be had right now; asking again after `retryAfterSeconds` may work. */
export abstract class UnavailableError extends DomainError {
  constructor(
    message: string,
    /** How long a caller should wait before retrying, in seconds. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** No mainnet gas upstream answered and no reading recent enough to serve exists. */
export class GasUnavailableError extends UnavailableError {
  override name = 'GasUnavailableError';
  readonly summary = 'Gas data unavailable';
}

/** The history database could not be reached (or failed) for a read only it can answer. */
export class HistoryStoreUnavailableError extends UnavailableError {
  override name = 'HistoryStoreUnavailableError';
  readonly summary = 'History store unavailable';
}
