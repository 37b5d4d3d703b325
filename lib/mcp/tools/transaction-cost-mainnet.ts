import type { AppDeps } from '../../deps';
import { GAS_PER_BLOB } from '../../oracle/blob-fees';
import { getCurrentGas, STALE_PREFIX } from '../../services/current-gas';
import { getEthPrice } from '../../services/eth-price';
import { gweiToWei } from '../../units';
import { MAINNET_TX_GAS_CAP, MAINNET_TX_MAX_BLOBS } from '../inputs';
import { ToolArgumentError, type ToolOutput } from '../tool';
import { computeTransactionCost } from '../transaction-cost';
import type { TransactionCostArgs, transactionCostOutput } from './transaction-cost';
import { describeCost, describeStaleReading, mainnetNotes } from './transaction-cost-text';

/**
 * Prices a mainnet transaction at a tier: execution at the tier's fee per gas, and for `blobs` > 0 the
 * blob gas at the next block's blob base fee (the newest block's where the node gives only that). The
 * blob count is checked against the per-block maximum the chain reports now.
 */
export async function estimateMainnet(
  deps: AppDeps,
  args: TransactionCostArgs,
): Promise<ToolOutput<typeof transactionCostOutput>> {
  const tier = args.tier ?? 'average';
  // The protocol's own caps are checked before any upstream is read.
  if (args.gasLimit > MAINNET_TX_GAS_CAP) {
    throw new ToolArgumentError(
      `gasLimit must be at most ${MAINNET_TX_GAS_CAP.toLocaleString('en-US')} on mainnet, the gas one transaction ` +
        `may use since Fusaka (EIP-7825); got ${args.gasLimit}`,
    );
  }
  if (args.blobs > MAINNET_TX_MAX_BLOBS) {
    throw new ToolArgumentError(
      `blobs must be from 0 to ${MAINNET_TX_MAX_BLOBS}, the blobs one transaction may carry since Fusaka ` +
        `(EIP-7594); got ${args.blobs}`,
    );
  }
  const [gas, price] = await Promise.all([getCurrentGas(deps), getEthPrice(deps)]);
  const blobPrice = gas.nextBlobBaseFee ?? gas.blobBaseFee;
  if (args.blobs > 0) assertBlobCount(args.blobs, gas.maxBlobsPerBlock);
  const gasPriceGwei = gas[tier];
  const cost = computeTransactionCost({
    gasLimit: args.gasLimit,
    gasPriceWei: gweiToWei(gasPriceGwei),
    nativeUsd: price.usd,
    l1DataFee: 'none',
    ...(args.blobs > 0
      ? {
          blobFee: {
            wei: blobPrice === null ? null : BigInt(args.blobs) * GAS_PER_BLOB * gweiToWei(blobPrice),
          },
        }
      : {}),
  });
  const wallet = gas.tiers[tier];
  const data = {
    network: 'mainnet' as const,
    networkName: 'Ethereum mainnet',
    nativeToken: 'ETH' as const,
    gasLimit: args.gasLimit,
    tier,
    gasPriceGwei,
    maxPriorityFeePerGas: wallet.maxPriorityFeePerGas,
    maxFeePerGas: wallet.maxFeePerGas,
    expectedWaitSeconds: wallet.estimatedWaitSeconds,
    nativeUsd: price.usd,
    ...cost,
    l1GasUnits: null,
    blobs: args.blobs,
    blobGasPriceGwei: args.blobs > 0 ? blobPrice : null,
    feeCompleteness: 'full_estimate' as const,
    notes: mainnetNotes({
      tier,
      source: gas.source,
      priceMissing: price.usd === null,
      blobs: args.blobs,
      blobPrice,
    }),
    updatedAt: gas.updatedAt,
  };
  const stale = gas.source.startsWith(STALE_PREFIX) ? describeStaleReading(gas.updatedAt, deps.now()) : null;
  return { data, summary: describeCost(data, false, stale), updatedAt: gas.updatedAt };
}

/** Rejects a blob count above what one block can carry now (read from the chain, not a fork table). */
function assertBlobCount(blobs: number, maxBlobsPerBlock: number | null): void {
  if (maxBlobsPerBlock === null) {
    throw new ToolArgumentError(
      'blobs: the per-block blob maximum could not be read from the chain just now (the newest block carried ' +
        'no blob or the provider gives no blob data); retry shortly or call with blobs 0.',
    );
  }
  if (blobs > maxBlobsPerBlock) {
    throw new ToolArgumentError(
      `blobs must be from 0 to ${maxBlobsPerBlock}, the blobs one block can carry under the chain's current rules; got ${blobs}`,
    );
  }
}
