import type { L2Network } from '../../l2/networks';
import type { ReadingStatus } from '../../l2/present';
import type { L2NetworkReading } from '../../schemas/l2-gas';
import type { FeeAmount, TransactionCost } from '../transaction-cost';

const UPPER_BOUND_NOTE =
  'The execution figure prices the whole gas limit; a transaction that uses less gas than its limit pays less.';

/** What a mainnet estimate's notes are built from. */
export interface MainnetNoteInput {
  tier: string;
  source: string;
  priceMissing: boolean;
  blobs: number;
  /** Blob base fee (gwei per blob gas) the blobs were priced at; null when unknown. */
  blobPrice: number | null;
}

/** The notes of a mainnet estimate: what the tier means, where the price came from, what is missing. */
export function mainnetNotes(input: MainnetNoteInput): string[] {
  const { tier, source, priceMissing, blobs, blobPrice } = input;
  const notes = [
    `Fee per gas is the ${tier} tier (next block base fee plus a priority fee), read from ${source}.`,
    UPPER_BOUND_NOTE,
    'Send with maxFeePerGas and maxPriorityFeePerGas: the chain charges base fee + tip and refunds the rest.',
    'Mainnet has no separate L1 data fee: execution is the whole fee.',
  ];
  if (blobs > 0) {
    notes.push(
      blobPrice === null
        ? 'The blob base fee could not be read from the chain just now: blobFee and total are unknown.'
        : `blobFee prices ${blobs} blob(s) x 131,072 blob gas at the blob base fee of ${blobPrice} gwei; set ` +
            'maxFeePerBlobGas above it, since it moves by up to about 8 % a block.',
    );
  }
  if (source.startsWith('stale:'))
    notes.push(
      'Live upstreams did not answer; the gas price is the last good reading, at most 5 minutes old. Its ' +
        'maxFeePerGas is widened by every full block that may have been mined since its block (by the end of ' +
        'the 30 s an answer may be cached), so it still covers the tier.',
    );
  if (priceMissing) notes.push('USD figures unavailable: no price source answered for ETH.');
  return notes;
}

/** What an L2 estimate's notes are built from. */
export interface L2NoteInput {
  network: L2Network;
  reading: L2NetworkReading;
  status: ReadingStatus;
  readAt: string;
  /** When the L1 data fee was read, if before the gas price (the oracle's last good answer). */
  l1FeeReadAt?: string | null;
  /** Arbitrum: when its L1 component was read, if before the gas price (the NodeInterface's last good answer). */
  l1ComponentReadAt?: string | null;
  tierGiven: string | undefined;
  gasLimit: number;
  /** OP Stack: whether the operator fee was read (it may still not be derivable for gasLimit). */
  operatorFeeRead: boolean;
  /** When the operator fee was read, if before the gas price (the oracle's last good answer). */
  operatorFeeReadAt?: string | null;
  cost: TransactionCost;
  /**
   * The price per gas of base fee + tip (gwei) when it, not the gas price, prices the estimate, and
   * whether the gas price is below the chain's minimum tip over the base fee (no transaction pays it).
   */
  pairPrice: { gwei: number; belowMinimum: boolean } | null;
}

/**
 * The notes of an L2 estimate. They say plainly what is and is not in the figures: the L1 data fee on
 * OP Stack is the one of a representative transfer (it grows with calldata size, not with gas), and
 * Arbitrum's L1 component is added as the gas units of a representative transfer, on top of gasLimit.
 */
export function l2Notes(input: L2NoteInput): string[] {
  const { network, reading, status, readAt, l1FeeReadAt, l1ComponentReadAt, tierGiven, cost, pairPrice } =
    input;
  const notes = [
    pairPrice === null
      ? `Fee per gas is the current ${network.name} gas price (eth_gasPrice), paid in ${network.nativeToken}.`
      : `Fee per gas is the base fee plus the tip (${pairPrice.gwei} gwei), what a transaction sent with the ` +
        `suggested fee pair pays, in ${network.nativeToken}; the chain's gas price (eth_gasPrice, ` +
        `${reading.gasPriceGwei} gwei) is below it` +
        (pairPrice.belowMinimum
          ? `, under the minimum tip ${network.name}'s nodes accept, so no transaction pays only that.`
          : '.'),
  ];
  notes.push(UPPER_BOUND_NOTE);
  if (tierGiven)
    notes.push(
      `tier "${tierGiven}" applies to mainnet only and was not used: ${network.name} has one gas price.`,
    );
  if (network.feeModel === 'rollup_op_stack') {
    notes.push(
      cost.l1DataFee
        ? 'l1DataFee is the L1 data fee of a representative serialized EIP-1559 ETH transfer, read ' +
            `${l1FeeReadAt ? `at ${l1FeeReadAt} (its last good answer: it did not answer at the reading of ${readAt})` : status === 'last-good' ? 'with the last good reading' : 'live'} from the ` +
            'GasPriceOracle predeploy (getL1Fee) and paid in ETH. It depends on the transaction size in bytes, not ' +
            'on gasLimit: a contract call with more calldata pays a larger L1 fee than shown.'
        : 'The L1 data fee could not be read from the GasPriceOracle just now: total is unknown and a real ' +
            'transaction costs more than the execution figure.',
    );
    notes.push(operatorFeeNote(input));
  } else if (network.feeModel === 'rollup_arbitrum_nitro') {
    notes.push(
      cost.l1DataFee
        ? `l1DataFee is Arbitrum's L1 component: ${reading.estimatedL1GasUnits} extra gas units for a representative ` +
            `ETH transfer (NodeInterface.gasEstimateL1Component${l1ComponentReadAt ? `, its last good answer, read at ${l1ComponentReadAt}: it did not answer at the reading of ${readAt}` : ''}) ` +
            'at the L2 base fee it returned with them, the fee ' +
            'Nitro divided the L1 posting cost by and charges gas at; Nitro pads that cost by 10 % for estimates, so ' +
            'this is an estimate about that much above it. It grows with calldata size: a ' +
            'contract call with more calldata pays more than shown. gasLimit is taken as execution gas alone: ' +
            "Arbitrum's eth_estimateGas already includes the L1 units, so its answer given as gasLimit counts them twice."
        : 'Arbitrum charges its L1 data cost as extra gas units that depend on the transaction size and the L1 ' +
            'price; they could not be read just now, so total is unknown and a real transaction costs more than ' +
            'gasLimit x gas price.',
    );
  } else {
    notes.push(
      'Full fee: a sidechain pays no per-transaction L1 fee, so execution in POL is the whole cost.',
    );
  }
  if (status === 'last-good')
    notes.push(`Live providers did not answer; the gas price is the last good reading, taken at ${readAt}.`);
  if (reading.nativeUsd === null)
    notes.push(`USD figures unavailable: no price source answered for ${network.nativeToken}.`);
  return notes;
}

/** What an OP Stack estimate's operator fee is, or why it is missing and left out of the total. */
function operatorFeeNote(input: L2NoteInput): string {
  const { cost, gasLimit, operatorFeeRead, operatorFeeReadAt, readAt } = input;
  if (cost.operatorFee) {
    const how =
      gasLimit === 21_000
        ? "the GasPriceOracle's getOperatorFee(21000) answer"
        : "the GasPriceOracle's formula (the one that reproduces its getOperatorFee(21000) answer) applied to " +
          "gasLimit with the chain's operator fee scalar and constant (L1Block)";
    const when = operatorFeeReadAt
      ? ` (its last good answer, read at ${operatorFeeReadAt}: it did not answer at the reading of ${readAt})`
      : '';
    return (
      `operatorFee is the operator fee of ${gasLimit} gas, ${how}${when}, paid in ETH${cost.total ? ' and included in total' : ''}; ` +
      'it is 0 while the chain operator sets none. The chain charges it on the gas limit and refunds it down ' +
      'to the gas used, so it is an upper bound.'
    );
  }
  const why = operatorFeeRead
    ? "The operator fee of this gas limit could not be derived: the chain's getOperatorFee(21000) answer " +
      'matches neither known formula (Isthmus, Jovian) for its parameters'
    : 'The operator fee could not be read from the GasPriceOracle just now';
  return cost.total
    ? `${why}, so total excludes it: a real transaction pays it on top (0 unless the chain's operator sets one).`
    : `${why}.`;
}

// Plain decimals: a model relays 0.000000125 ETH more reliably than 1.25e-7.
const plain = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 12, useGrouping: false });
// A price per gas to send, to the wei whatever its size (1234.567891234 gwei has 13 digits).
const perGas = new Intl.NumberFormat('en-US', { maximumFractionDigits: 9, useGrouping: false });

function formatAmount(amount: FeeAmount, token: string): string {
  const usd = amount.usd === null ? 'USD unknown' : `about $${plain.format(amount.usd)}`;
  return `${plain.format(amount.native)} ${token} (${plain.format(amount.gwei)} gwei, ${usd})`;
}

/** How a summary's main sentence names a last good reading: its time and age at `nowMs`. */
export function describeStaleReading(readAt: string, nowMs: number): string {
  const ageSeconds = Math.max(0, Math.round((nowMs - Date.parse(readAt)) / 1000));
  return `a stale reading (live upstreams failing; the last good one, taken at ${readAt}, ${ageSeconds} s ago)`;
}

/**
 * Summarises an estimate in one sentence: what was priced, at what price, and the total (saying so
 * when `operatorFeeLeftOut`: an OP Stack operator fee that is unknown is not in it). `stale` (from
 * describeStaleReading) names a last good reading in that sentence, with what it does to the max fee.
 */
export function describeCost(
  data: {
    networkName: string;
    nativeToken: string;
    gasLimit: number;
    tier: string | null;
    gasPriceGwei: number;
    execution: FeeAmount;
    l1DataFee: FeeAmount | null;
    operatorFee?: FeeAmount | null;
    blobFee: FeeAmount | null;
    total: FeeAmount | null;
    feeCompleteness: string;
    maxFeePerGas: number | null;
    maxPriorityFeePerGas: number | null;
    expectedWaitSeconds: { p50: number; p90: number } | null;
  },
  operatorFeeLeftOut = false,
  stale: string | null = null,
): string {
  const price = `${perGas.format(data.gasPriceGwei)} gwei`;
  const at = data.tier ? `the ${data.tier} tier, ${price}` : price;
  const head = `${data.gasLimit} gas on ${data.networkName} at ${at}${stale ? ` from ${stale}` : ''}`;
  const parts = [`execution ${formatAmount(data.execution, data.nativeToken)}`];
  if (data.l1DataFee) parts.push(`L1 data fee ${formatAmount(data.l1DataFee, 'ETH')}`);
  // A zero operator fee (no operator sets one yet) adds nothing to the sentence; the data carries it.
  if (data.operatorFee && data.operatorFee.wei !== '0')
    parts.push(`operator fee ${formatAmount(data.operatorFee, 'ETH')}`);
  if (data.blobFee) parts.push(`blob gas ${formatAmount(data.blobFee, data.nativeToken)}`);
  let cost: string;
  if (!data.total) cost = `${parts.join(' + ')}; total unknown (a part is unavailable, see notes)`;
  else if (parts.length > 1) cost = `${parts.join(' + ')} = ${formatAmount(data.total, data.nativeToken)}`;
  else
    cost = `${formatAmount(data.execution, data.nativeToken)}${data.feeCompleteness === 'execution_only' ? ' (execution only, see notes)' : ''}`;
  if (data.total && operatorFeeLeftOut) cost += ', excluding the operator fee (unknown, see notes)';
  let send =
    data.maxFeePerGas !== null && data.maxPriorityFeePerGas !== null
      ? ` Send with maxFeePerGas ${perGas.format(data.maxFeePerGas)} and maxPriorityFeePerGas ${perGas.format(data.maxPriorityFeePerGas)} gwei`
      : '';
  if (stale && send) send += ' (max fee widened for the blocks since that reading)';
  const wait = data.expectedWaitSeconds
    ? `, included in about ${data.expectedWaitSeconds.p50} s (90 % within ${data.expectedWaitSeconds.p90} s)`
    : '';
  return `${head}: ${cost}.${send}${send ? `${wait}.` : ''}`;
}
