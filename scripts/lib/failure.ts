import { ConfigError } from '../../lib/config';
import { describeDbError } from '../../lib/store/database';

/**
 * What a script prints when it fails: a bad environment variable in full (its message names every
 * variable, never a value), anything else as its first line with hosts only, since a driver error
 * may quote the connection string.
 */
export function describeScriptFailure(error: unknown): string {
  return error instanceof ConfigError ? error.message : describeDbError(error);
}
