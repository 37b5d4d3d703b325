import { formatGwei } from 'viem';
import type { AppDeps } from '../../deps';
import { getL2Network, type L2NetworkId } from '../../l2/networks';
import { computeOperatorFeeWei } from '../../l2/operator-fee';
import { getL2Gas, l2RetryAfterSeconds } from '../../services/l2-gas';
import { gweiToWei } from '../../units';
import { ToolArgumentError, type ToolOutput, ToolUnavailableError } from '../tool';
import { computeTransactionCost } from '../transaction-cost';
import type { TransactionCostArgs, transactionCostOutput } from './transaction-cost';
import { describeCost, l2Notes } from './transaction-cost-text';

/**
 * Prices a transaction on an L2 at its gas price, or at what the suggested fee pair pays (base fee +
 * tip) when that is higher (Polygon's nodes refuse a tip under 25 gwei whatever a provider's gas price
 * says): OP Stack adds the L1 data fee of the representative transfer and the operator fee of gasLimit
 * gas, Arbitrum its L1 component (the NodeInterface's gas units at the base fee it computed them
 * with), so both totals are complete; an operator fee that is unknown is left out of the total, and
 * the notes and the summary say so. The fee pair is the chain's own suggestion.
 */
export async function estimateL2(
  deps: AppDeps,
  args: TransactionCostArgs,
  id: L2NetworkId,
): Promise<ToolOutput<typeof transactionCostOutput>> {
  const network = getL2Network(id);
  if (args.blobs > 0) {
    throw new ToolArgumentError(
      `blobs must be 0 on ${network.name}: blob transactions are priced on mainnet only; got ${args.blobs}`,
    );
  }
  const result = await getL2Gas(deps);
  const reading = result.networks.find((n) => n.id === network.id);
  const snapshot = result.snapshots.find((s) => s.network === network.id);
  if (!reading || !snapshot || snapshot.gasPriceWei === null || snapshot.fetchedAt === null) {
    // When the network's failed refresh is tried again; until 2026-11-28 "retry shortly".
    throw new ToolUnavailableError(
      `${network.name} gas price unavailable: no provider answered and no reading of the last 5 minutes exists.`,
      l2RetryAfterSeconds(snapshot ?? { retryAt: null }, deps.now()),
    );
  }
  // With no pair (a tip not read, a reading too old for one), the chain's minimum tip still applies.
  const tipWei =
    reading.maxPriorityFeePerGas !== null
      ? gweiToWei(reading.maxPriorityFeePerGas)
      : (network.minPriorityFeeWei ?? null);
  const baseFeeWei = reading.baseFee === null ? null : gweiToWei(reading.baseFee);
  const pairPriceWei = baseFeeWei === null || tipWei === null ? null : baseFeeWei + tipWei;
  const belowMinimum =
    baseFeeWei !== null &&
    network.minPriorityFeeWei !== undefined &&
    snapshot.gasPriceWei < baseFeeWei + network.minPriorityFeeWei;
  const priceWei =
    pairPriceWei !== null && pairPriceWei > snapshot.gasPriceWei ? pairPriceWei : snapshot.gasPriceWei;
  const l1GasUnits = reading.estimatedL1GasUnits;
  // An L1 part that applies but could not be read leaves the total unknown (null), on Arbitrum as on
  // OP Stack: execution alone would understate what a wallet pays.
  const l1DataFee = network.hasL1DataFee
    ? { wei: snapshot.l1FeeWei }
    : network.hasL1GasUnits
      ? { wei: snapshot.l1ComponentWei }
      : ('none' as const);
  // Exact for gasLimit: the oracle's own answer at 21,000 gas, else its formula on the read parameters.
  const operatorFee = network.hasL1DataFee
    ? {
        wei:
          snapshot.operatorFee === null
            ? null
            : computeOperatorFeeWei(BigInt(args.gasLimit), snapshot.operatorFee),
      }
    : undefined;
  const cost = computeTransactionCost({
    gasLimit: args.gasLimit,
    gasPriceWei: priceWei,
    nativeUsd: reading.nativeUsd,
    l1DataFee,
    ...(operatorFee ? { operatorFee } : {}),
  });
  // The data's time is its oldest part's: a kept oracle fee (or Arbitrum L1 component) read before the
  // gas price counts.
  const keptAts = [
    snapshot.l1FeeReadAt,
    cost.operatorFee ? snapshot.operatorFeeReadAt : null,
    snapshot.l1ComponentReadAt,
  ];
  const dataTime = Math.min(snapshot.fetchedAt, ...keptAts.filter((at) => at !== null));
  const updatedAt = new Date(dataTime).toISOString();
  const readAt = new Date(snapshot.fetchedAt).toISOString();
  // The total is known when every part SPEC 2.10's wallet fee counts is (an unknown operator fee is
  // left out of it, and said so).
  const complete = cost.total !== null;
  const operatorFeeLeftOut = network.hasL1DataFee && cost.total !== null && cost.operatorFee === null;
  const data = {
    network: network.id,
    networkName: network.name,
    nativeToken: network.nativeToken,
    gasLimit: args.gasLimit,
    tier: null,
    gasPriceGwei: Number(formatGwei(priceWei)),
    maxPriorityFeePerGas: reading.maxPriorityFeePerGas,
    maxFeePerGas: reading.maxFeePerGas,
    expectedWaitSeconds: null,
    nativeUsd: reading.nativeUsd,
    ...cost,
    l1GasUnits,
    blobs: 0,
    blobGasPriceGwei: null,
    feeCompleteness: complete ? ('full_estimate' as const) : ('execution_only' as const),
    notes: l2Notes({
      network,
      reading,
      status: snapshot.status,
      readAt,
      l1FeeReadAt: snapshot.l1FeeReadAt === null ? null : new Date(snapshot.l1FeeReadAt).toISOString(),
      l1ComponentReadAt:
        snapshot.l1ComponentReadAt === null ? null : new Date(snapshot.l1ComponentReadAt).toISOString(),
      operatorFeeReadAt:
        snapshot.operatorFeeReadAt === null ? null : new Date(snapshot.operatorFeeReadAt).toISOString(),
      tierGiven: args.tier,
      gasLimit: args.gasLimit,
      operatorFeeRead: snapshot.operatorFee !== null,
      cost,
      pairPrice:
        priceWei === snapshot.gasPriceWei ? null : { gwei: Number(formatGwei(priceWei)), belowMinimum },
    }),
    updatedAt,
  };
  return { data, summary: describeCost(data, operatorFeeLeftOut), updatedAt: dataTime };
}
