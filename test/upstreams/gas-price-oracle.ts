import { decodeFunctionData, encodeFunctionResult, type Hex, parseAbi, size } from 'viem';
import type { OperatorFeeState, OpOracleState } from './chain-profiles';

/** The OP Stack GasPriceOracle predeploy address. */
export const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000f';
/** The OP Stack L1Block predeploy address, which holds the L1 prices and (since Isthmus) the operator fee. */
export const L1_BLOCK = '0x4200000000000000000000000000000000000015';

const oracleAbi = parseAbi([
  'function getL1Fee(bytes _data) view returns (uint256)',
  'function getL1GasUsed(bytes _data) view returns (uint256)',
  'function getL1FeeUpperBound(uint256 _unsignedTxSize) view returns (uint256)',
  'function getOperatorFee(uint256 _gasUsed) view returns (uint256)',
  'function l1BaseFee() view returns (uint256)',
  'function blobBaseFee() view returns (uint256)',
  'function baseFeeScalar() view returns (uint32)',
  'function blobBaseFeeScalar() view returns (uint32)',
  'function decimals() pure returns (uint256)',
  'function isEcotone() view returns (bool)',
  'function isFjord() view returns (bool)',
  'function isIsthmus() view returns (bool)',
  'function isJovian() view returns (bool)',
  'function gasPrice() view returns (uint256)',
  'function baseFee() view returns (uint256)',
  'function version() view returns (string)',
]);

// Fjord constants from the GasPriceOracle source: a linear model of the Brotli-compressed size.
const COST_INTERCEPT = -42_585_600n;
const COST_FASTLZ_COEF = 836_500n;
const MIN_TRANSACTION_SIZE = 100n;
const SCALE = 10n ** 12n; // 10 ** (DECIMALS * 2)

/** Fjord's estimated Brotli size (scaled by 1e6) for a FastLZ size (GasPriceOracle._fjordLinearRegression). */
function estimateFjordSize(fastLzSize: bigint): bigint {
  const estimatedSize = COST_INTERCEPT + COST_FASTLZ_COEF * fastLzSize;
  const floor = MIN_TRANSACTION_SIZE * 1_000_000n;
  return estimatedSize < floor ? floor : estimatedSize;
}

/** Fjord's L1 cost for a FastLZ-compressed size (GasPriceOracle._fjordL1Cost). */
export function computeFjordL1Cost(fastLzSize: bigint, state: OpOracleState): bigint {
  const estimatedSize = estimateFjordSize(fastLzSize);
  const feeScaled =
    BigInt(state.baseFeeScalar) * 16n * state.l1BaseFee + BigInt(state.blobBaseFeeScalar) * state.blobBaseFee;
  return (estimatedSize * feeScaled) / SCALE;
}

/**
 * getL1Fee(bytes) as Fjord computes it, except that the FastLZ-compressed size is taken to be the raw
 * length: a signed transfer is mostly signature and address bytes, which FastLZ barely shrinks. So the
 * fee is plausible, not the contract's exact value (the Hardhat OP chain test checks the exact one).
 */
export function computeL1Fee(data: Hex, state: OpOracleState): bigint {
  return computeFjordL1Cost(BigInt(size(data)) + 68n, state);
}

const l1BlockAbi = parseAbi([
  'function operatorFeeScalar() view returns (uint32)',
  'function operatorFeeConstant() view returns (uint64)',
]);

/**
 * GasPriceOracle.getOperatorFee(gasUsed) of the fork: Isthmus gas x scalar / 1e6 + constant (integer
 * division), Jovian gas x scalar x 100 + constant (contracts-bedrock; op-geth rollup_cost.go).
 */
export function computeOperatorFee(gasUsed: bigint, fee: OperatorFeeState): bigint {
  const scalar = BigInt(fee.scalar);
  return fee.fork === 'jovian'
    ? gasUsed * scalar * 100n + fee.constant
    : (gasUsed * scalar) / 1_000_000n + fee.constant;
}

/** What an eth_call to the oracle returns: ABI-encoded result, or a revert for an unknown selector. */
export type OracleCallResult = { ok: true; data: Hex } | { ok: false };

/** Answers an eth_call to the GasPriceOracle from the oracle state (plus any L1-fee override). */
export function callGasPriceOracle(
  data: Hex,
  state: OpOracleState,
  l2: { gasPrice: bigint; baseFee: bigint; l1Fee: bigint | undefined },
): OracleCallResult {
  let call: ReturnType<typeof decodeFunctionData<typeof oracleAbi>>;
  try {
    call = decodeFunctionData({ abi: oracleAbi, data });
  } catch {
    return { ok: false };
  }
  const encode = (result: unknown): OracleCallResult => ({
    ok: true,
    data: encodeFunctionResult({ abi: oracleAbi, functionName: call.functionName, result } as never),
  });
  switch (call.functionName) {
    case 'getL1Fee':
      return encode(l2.l1Fee ?? computeL1Fee(call.args[0], state));
    case 'getL1GasUsed':
      return encode((estimateFjordSize(BigInt(size(call.args[0])) + 68n) * 16n) / 1_000_000n);
    case 'getOperatorFee':
      // An oracle from before Isthmus has no such function: the call reverts.
      if (state.operatorFee.fork === 'pre-isthmus') return { ok: false };
      return encode(computeOperatorFee(call.args[0], state.operatorFee));
    case 'isIsthmus':
      if (state.operatorFee.fork === 'pre-isthmus') return { ok: false };
      return encode(true);
    case 'isJovian':
      if (state.operatorFee.fork !== 'jovian') return { ok: false };
      return encode(true);
    case 'getL1FeeUpperBound': {
      const txSize = call.args[0] + 68n;
      return encode(computeFjordL1Cost(txSize + txSize / 255n + 16n, state));
    }
    case 'l1BaseFee':
      return encode(state.l1BaseFee);
    case 'blobBaseFee':
      return encode(state.blobBaseFee);
    case 'baseFeeScalar':
      return encode(state.baseFeeScalar);
    case 'blobBaseFeeScalar':
      return encode(state.blobBaseFeeScalar);
    case 'decimals':
      return encode(6n);
    case 'isEcotone':
    case 'isFjord':
      return encode(true);
    case 'gasPrice':
      return encode(l2.gasPrice);
    case 'baseFee':
      return encode(l2.baseFee);
    case 'version':
      return encode('1.3.0');
  }
}

/** Answers an eth_call to L1Block's operator fee getters (ABI-encoded), reverting before Isthmus. */
export function callL1Block(data: Hex, fee: OperatorFeeState): OracleCallResult {
  if (fee.fork === 'pre-isthmus') return { ok: false };
  try {
    const call = decodeFunctionData({ abi: l1BlockAbi, data });
    const result = call.functionName === 'operatorFeeScalar' ? fee.scalar : fee.constant;
    return {
      ok: true,
      data: encodeFunctionResult({ abi: l1BlockAbi, functionName: call.functionName, result } as never),
    };
  } catch {
    return { ok: false };
  }
}

/** Jovian's default daFootprintGasScalar, which L1Block packs in the operator fee slot above the scalar. */
const DA_FOOTPRINT_GAS_SCALAR = 400n;

/**
 * L1Block's storage word at `slot` as eth_getStorageAt reads it: slot 8 packs operatorFeeConstant
 * (bits 0-63), operatorFeeScalar (64-95) and, since Jovian, daFootprintGasScalar (96-111); unset
 * before Isthmus. Slots this simulator does not model read 0.
 */
export function l1BlockStorageAt(slot: bigint, fee: OperatorFeeState): bigint {
  if (slot !== 8n || fee.fork === 'pre-isthmus') return 0n;
  const daFootprint = fee.fork === 'jovian' ? DA_FOOTPRINT_GAS_SCALAR << 96n : 0n;
  return daFootprint | (BigInt(fee.scalar) << 64n) | fee.constant;
}
