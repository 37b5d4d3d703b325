import type { L2NetworkReading } from '../schemas/l2-gas';
import { weiToGwei } from '../units';
import { suggestL2Fees } from './fee-suggestion';
import { computeFeesUsd } from './fees';
import type { FeeCompleteness, L2Network } from './networks';
import type { OperatorFeeReading } from './operator-fee';

/** Where a network's numbers came from: a live read, the last good reading, or nowhere. */
export type ReadingStatus = 'live' | 'last-good' | 'unavailable';

/** The gas facts behind one served network, whatever their origin. */
export interface NetworkFacts {
  status: ReadingStatus;
  gasPriceWei: bigint | null;
  l1FeeWei: bigint | null;
  /** OP Stack: the operator fee, read apart from `l1FeeWei`; null elsewhere or unknown. */
  operatorFee: OperatorFeeReading | null;
  /** When the gas price was read upstream (epoch ms); null when unavailable. */
  readAt: number | null;
  /** Base fee of the latest block; null when unknown. */
  baseFeeWei: bigint | null;
  /** The chain's eth_maxPriorityFeePerGas; null where tips are ignored or when it could not be read. */
  suggestedTipWei: bigint | null;
  /** Arbitrum: L1 component of the representative transfer in gas units; null elsewhere or unknown. */
  l1GasUnits: bigint | null;
  /** Arbitrum: the L2 base fee the NodeInterface computed those units with; null elsewhere or unknown. */
  l1GasBaseFeeWei: bigint | null;
  /**
   * When `l1FeeWei` was read, if before the gas price: the oracle did not answer at the last read and
   * its last good answer (at most 5 minutes old) stands in. Null or absent when read with the gas price.
   */
  l1FeeReadAt?: number | null;
  /** The same for `operatorFee`, kept on its own. */
  operatorFeeReadAt?: number | null;
  /** The same for Arbitrum's `l1GasUnits` and `l1GasBaseFeeWei` (the NodeInterface's last good answer). */
  l1GasReadAt?: number | null;
  /**
   * When the network's failed refresh is tried again (its shared entry's `failure.retryAt`, epoch ms);
   * null or absent when no failure is on record. Not served: MCP errors say it as "Retry after N seconds".
   */
  retryAt?: number | null;
}

/** USD prices of the two tokens fees are paid in; null when the price chain had no value. */
export interface TokenPrices {
  ETH: number | null;
  POL: number | null;
}

/** One network as served, with the figures the snapshot job stores. */
export interface PresentedNetwork {
  reading: L2NetworkReading;
  status: ReadingStatus;
  readAt: number | null;
  /** True when an OP Stack network's L1 fee could not be read (feeCompleteness says execution_only). */
  l1FeeMissing: boolean;
  /** True when an OP Stack network's operator fee could not be read (estimatedOperatorFeeUsd is null). */
  operatorFeeMissing: boolean;
  /** The exact figures behind the reading, for consumers that price other gas limits (MCP). */
  gasPriceWei: bigint | null;
  l1FeeWei: bigint | null;
  operatorFee: OperatorFeeReading | null;
  /** When the served L1 fee was read, if before the gas price (see NetworkFacts); else null. */
  l1FeeReadAt: number | null;
  /** When the served operator fee was read, if before the gas price; else null. */
  operatorFeeReadAt: number | null;
  /** Arbitrum: the L1 component in wei, its units at the base fee they were computed with; else null. */
  l1ComponentWei: bigint | null;
  /** When the served L1 component was read, if before the gas price (see NetworkFacts); else null. */
  l1ComponentReadAt: number | null;
  /** True when Arbitrum's L1 component could not be read (estimatedL1GasUnits is null). */
  l1ComponentMissing: boolean;
  /** When the network's failed refresh is tried again (see NetworkFacts); null when none is on record. */
  retryAt: number | null;
}

/**
 * The oldest reading a fee pair is suggested from: the live cadence (SPEC 4.3, 60 s). A max fee
 * doubles the base fee as read, and 5 minutes outrun that on both chains with a market tip: on OP
 * Stack they are 150 blocks of 2 s, at most 2 % a block, so about 19-fold; on Polygon, whose blocks
 * are 1 s since Madhugiri (block 80,084,800), 300 blocks at Bor's default of at most about 0.84 % a
 * block (change denominator 64 since Bhilai, gas target 65 % since Dandeli), so about 12-fold, and
 * since Lisovo producers may set the denominator, consensus only bounding a change to 5 % a block.
 */
const PAIR_MAX_AGE_MS = 60_000;

const L1_MISSING_NOTE =
  'Execution cost only: the L1 data fee could not be read from the GasPriceOracle just now, so the ' +
  'wallet fee is unknown; a real transfer costs more than the execution figure.';

/** What feeNote says of an OP Stack operator fee: paid on top of the wallet fee, and how it was read. */
function operatorFeeNote(facts: NetworkFacts, keptAt: number | null, now: number): string {
  if (facts.operatorFee === null) {
    return (
      'Operator fee unknown: getOperatorFee could not be read from the GasPriceOracle just now; it is paid ' +
      "in ETH on top of the wallet fee (0 unless the chain's operator sets one)."
    );
  }
  const note =
    'Operator fee (estimatedOperatorFeeUsd): paid in ETH on top of the wallet fee, from the ' +
    "GasPriceOracle's getOperatorFee(21000); 0 unless the chain's operator sets one.";
  if (keptAt === null || facts.readAt === null) return note;
  const ageSeconds = Math.max(0, Math.round((now - keptAt) / 1000));
  return (
    `${note} It is the oracle's last good answer, taken at ${new Date(keptAt).toISOString()} ` +
    `(${ageSeconds} s earlier): it did not answer at the reading of ${new Date(facts.readAt).toISOString()}.`
  );
}

/**
 * Builds the served item of one network from its facts and the token prices (SPEC.md 2.10): fees in
 * USD, the completeness the facts support and a feeNote that states every degradation, so a consumer
 * reading only the note still learns what the numbers mean.
 */
export function presentNetwork(
  network: L2Network,
  facts: NetworkFacts,
  prices: TokenPrices,
  now: number,
): PresentedNetwork {
  const nativeUsd = prices[network.nativeToken];
  const read = network.hasL1DataFee && facts.gasPriceWei !== null;
  const l1FeeMissing = read && facts.l1FeeWei === null;
  const operatorFeeMissing = read && facts.operatorFee === null;
  const l1GasUnits = network.hasL1GasUnits ? facts.l1GasUnits : null;
  const l1ComponentReadAt = l1GasUnits !== null ? (facts.l1GasReadAt ?? null) : null;
  const l1ComponentMissing = network.hasL1GasUnits && facts.gasPriceWei !== null && l1GasUnits === null;
  const fees =
    facts.gasPriceWei === null
      ? { executionGasCostUsd: null, l1DataFeeUsd: null, operatorFeeUsd: null, walletFeeUsd: null }
      : computeFeesUsd({
          gasPriceWei: facts.gasPriceWei,
          nativeUsd,
          ethUsd: prices.ETH,
          hasL1DataFee: network.hasL1DataFee,
          l1FeeWei: facts.l1FeeWei,
          operatorFeeWei: facts.operatorFee?.transferFeeWei ?? null,
        });
  // SPEC decision 5: the wallet fee (execution + L1 data fee) is complete without the operator fee.
  const feeCompleteness: FeeCompleteness = l1FeeMissing ? 'execution_only' : network.feeCompleteness;
  const suggestion = suggestL2Fees(network, facts.baseFeeWei, facts.suggestedTipWei);
  // A live reading can be that old too: a shared entry near the end of its life, read after slow calls.
  const pairTooOld = facts.readAt !== null && now - facts.readAt > PAIR_MAX_AGE_MS;
  const pair = pairTooOld ? null : (suggestion?.pair ?? null);
  const gwei = (value: bigint | undefined) => (value === undefined ? null : weiToGwei(value));

  const notes: string[] = [];
  if (facts.status === 'unavailable') {
    notes.push(
      `Reading unavailable: no ${network.name} provider answered and no reading of the last 5 minutes exists.`,
    );
  } else if (facts.status === 'last-good' && facts.readAt !== null) {
    const ageSeconds = Math.max(0, Math.round((now - facts.readAt) / 1000));
    notes.push(
      `Live providers did not answer; this is the last good reading, taken at ` +
        `${new Date(facts.readAt).toISOString()} (${ageSeconds} s earlier).`,
    );
  }
  const l1FeeReadAt = facts.l1FeeWei !== null ? (facts.l1FeeReadAt ?? null) : null;
  if (l1FeeMissing) notes.push(L1_MISSING_NOTE);
  else if (l1FeeReadAt !== null && facts.readAt !== null) {
    const ageSeconds = Math.max(0, Math.round((now - l1FeeReadAt) / 1000));
    notes.push(
      'Wallet fee = L2 execution (21,000 gas x gas price) + L1 data fee of a serialized EIP-1559 ETH ' +
        "transfer, paid in ETH. The L1 data fee is the GasPriceOracle's last good answer, taken at " +
        `${new Date(l1FeeReadAt).toISOString()} (${ageSeconds} s earlier): it did not answer at the ` +
        `reading of ${new Date(facts.readAt).toISOString()}.`,
    );
  } else notes.push(network.feeNote);
  const operatorFeeReadAt = facts.operatorFee !== null ? (facts.operatorFeeReadAt ?? null) : null;
  if (read) notes.push(operatorFeeNote(facts, operatorFeeReadAt, now));
  if (l1ComponentReadAt !== null && facts.readAt !== null) {
    const ageSeconds = Math.max(0, Math.round((now - l1ComponentReadAt) / 1000));
    notes.push(
      "estimatedL1GasUnits is the NodeInterface's last good answer (gasEstimateL1Component), taken at " +
        `${new Date(l1ComponentReadAt).toISOString()} (${ageSeconds} s earlier): it did not answer at the ` +
        `reading of ${new Date(facts.readAt).toISOString()}.`,
    );
  }
  if (suggestion && !suggestion.pair) {
    notes.push(
      `No fee pair: ${network.name}'s tip suggestion (eth_maxPriorityFeePerGas) could not be read just now.`,
    );
  } else if (suggestion?.pair && pairTooOld) {
    notes.push('No fee pair from a reading this old: the base fee may have more than doubled since.');
  }
  if (facts.gasPriceWei !== null && nativeUsd === null) {
    notes.push(`USD figures unavailable: no price source answered for ${network.nativeToken}.`);
  } else if (read && (facts.l1FeeWei !== null || facts.operatorFee !== null) && prices.ETH === null) {
    notes.push('L1 data fee and operator fee in USD unavailable: no price source answered for ETH.');
  }

  return {
    reading: {
      id: network.id,
      name: network.name,
      nativeToken: network.nativeToken,
      gasPriceGwei: facts.gasPriceWei === null ? null : weiToGwei(facts.gasPriceWei),
      nativeUsd,
      executionGasCostUsd: fees.executionGasCostUsd,
      estimatedL1DataFeeUsd: fees.l1DataFeeUsd,
      estimatedOperatorFeeUsd: fees.operatorFeeUsd,
      estimatedWalletFeeUsd: fees.walletFeeUsd,
      feeCompleteness,
      feeModel: network.feeModel,
      blurb: network.blurb,
      feeNote: notes.join(' '),
      baseFee: gwei(suggestion?.baseFee),
      maxPriorityFeePerGas: gwei(pair?.maxPriorityFeePerGas),
      maxFeePerGas: gwei(pair?.maxFeePerGas),
      estimatedL1GasUnits: l1GasUnits === null ? null : Number(l1GasUnits),
    },
    status: facts.status,
    gasPriceWei: facts.gasPriceWei,
    l1FeeWei: facts.l1FeeWei,
    operatorFee: facts.operatorFee,
    l1FeeReadAt,
    operatorFeeReadAt,
    // The units at the base fee Nitro divided the padded posting cost by (and charges gas at), not at
    // eth_gasPrice: so about that padded cost, an estimate some 10 % above the posting cost itself.
    l1ComponentWei:
      l1GasUnits !== null && facts.l1GasBaseFeeWei !== null ? l1GasUnits * facts.l1GasBaseFeeWei : null,
    l1ComponentReadAt,
    l1ComponentMissing,
    retryAt: facts.retryAt ?? null,
    readAt: facts.readAt,
    l1FeeMissing,
    operatorFeeMissing,
  };
}
