import { OracleError } from './fee-history';

/**
 * No tier above this many gwei is served. The highest mainnet base fee since London was a few thousand
 * gwei for minutes (the May 2022 Otherside mint); a 20-block median above 10,000 gwei is a broken
 * answer (a unit mistake, a test chain, a corrupted response), not a market.
 */
export const MAX_SANE_GWEI = 10_000;

/**
 * Throws an OracleError unless low <= average <= high, every tier is a finite positive number below
 * MAX_SANE_GWEI, and the base fee is too.
 */
export function assertSaneTiers(tiers: {
  low: number;
  average: number;
  high: number;
  baseFee: number;
}): void {
  const { low, average, high, baseFee } = tiers;
  for (const value of [low, average, high, baseFee]) {
    if (!Number.isFinite(value) || value <= 0) throw new OracleError('tier not a positive number');
    if (value > MAX_SANE_GWEI) throw new OracleError(`tier above ${MAX_SANE_GWEI} gwei`);
  }
  if (!(low <= average && average <= high)) throw new OracleError('tiers not ordered');
}
