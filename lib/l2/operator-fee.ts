import { TRANSFER_GAS } from './fees';

/**
 * The OP Stack operator fee parameters the L1Block predeploy holds since Isthmus (set by the chain
 * operator through SystemConfig): a uint32 scalar and a uint64 constant, in wei.
 */
interface OperatorFeeParams {
  scalar: bigint;
  constant: bigint;
}

/**
 * An OP Stack chain's operator fee as read: the GasPriceOracle's own answer for the representative
 * 21,000-gas transfer (getOperatorFee(21000), exact, 0 when the operator sets none) and the parameters
 * it was computed from, so that other gas amounts can be priced without another call.
 */
export interface OperatorFeeReading {
  transferFeeWei: bigint;
  /** Null when L1Block's storage could not be read (a provider without eth_getStorageAt). */
  params: OperatorFeeParams | null;
}

/**
 * The operator fee formulas the GasPriceOracle has applied, newest last: Isthmus (May 2025) charges
 * gas x scalar / 1e6 + constant (integer division), Jovian gas x scalar x 100 + constant (op-geth
 * core/types/rollup_cost.go; GasPriceOracle.getOperatorFee).
 */
const FORMULAS = [
  (gas: bigint, p: OperatorFeeParams) => (gas * p.scalar) / 1_000_000n + p.constant,
  (gas: bigint, p: OperatorFeeParams) => gas * p.scalar * 100n + p.constant,
] as const;

/**
 * The operator fee (wei) of a transaction using `gas`, exact: the oracle's own answer for 21,000 gas,
 * else the formula that reproduces that answer from the parameters, applied to `gas` (the chain
 * charges it on the gas limit up front and refunds it down to the gas used, so at a gas limit it is an
 * upper bound). Both formulas agree when the scalar is 0. Null when neither reproduces the oracle's
 * answer (a fork with another formula): the fee for other gas amounts is then unknown, not guessed.
 */
export function computeOperatorFeeWei(gas: bigint, reading: OperatorFeeReading): bigint | null {
  if (gas === TRANSFER_GAS) return reading.transferFeeWei;
  const { params } = reading;
  if (params === null) return null;
  const active = FORMULAS.filter((formula) => formula(TRANSFER_GAS, params) === reading.transferFeeWei);
  const fees = new Set(active.map((formula) => formula(gas, params)));
  return fees.size === 1 ? ([...fees][0] as bigint) : null;
}
