import type { AppDeps } from '../../deps';
import { GAS_PER_BLOB } from '../../oracle/blob-fees';
import { type CurrentGasReading, readCurrentGas, STALE_PREFIX } from '../../services/current-gas';
import { getEthPrice } from '../../services/eth-price';
import { secondsUntilRetry } from '../../store/shared-read';
import { gweiToWei } from '../../units';
import { ETHERSCAN_SOURCE } from '../../upstream/etherscan';
import { MAINNET_TX_GAS_CAP, MAINNET_TX_MAX_BLOBS } from '../inputs';
import { ToolArgumentError, type ToolOutput, ToolUnavailableError } from '../tool';
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
  const [served, price] = await Promise.all([readCurrentGas(deps), getEthPrice(deps)]);
  const gas = served.reading;
  const blobPrice = gas.nextBlobBaseFee ?? gas.blobBaseFee;
  if (args.blobs > 0) assertBlobCount(args.blobs, gas, secondsUntilRetry(served.nextReadingAt, deps.now()));
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

/**
 * Rejects a blob count above what one block can carry now (read from the chain, not a fork table).
 * With that maximum unknown (the newest block read carried no blob, and this process derived none in
 * the last hour; or the provider gives no blob data), the next mainnet reading is the first that can
 * derive it again (from a newest block with blobs): `retryAfterSeconds` away (the end of the reading's
 * 30-s cadence, or a failed refresh's retry: readCurrentGas). Until 2026-11-28 it said "retry
 * shortly", with no time.
 *
 * A reading of the explorer backstop (`etherscan`, or `stale:etherscan` as the last good one) never
 * has one: the explorer gives no blob data (no blob fee, so no maximum is recalled either:
 * current-gas recallMaxBlobs). Only an RPC provider's reading brings blobs back, so the result says
 * so, with the same time (the next refresh, which asks the providers first). Until later on
 * 2026-11-28 it said the next mainnet reading would derive it, which a reading of the explorer's
 * again does not.
 */
function assertBlobCount(
  blobs: number,
  gas: Pick<CurrentGasReading, 'maxBlobsPerBlock' | 'source'>,
  retryAfterSeconds: number,
): void {
  const maxBlobsPerBlock = gas.maxBlobsPerBlock;
  if (maxBlobsPerBlock === null) {
    const explorer = gas.source === ETHERSCAN_SOURCE || gas.source === `${STALE_PREFIX}${ETHERSCAN_SOURCE}`;
    throw new ToolUnavailableError(
      explorer
        ? 'blobs: mainnet gas comes from the block explorer backstop just now, ' +
            'which gives no blob data, so the blob count cannot be checked nor the blobs priced; they can ' +
            'be once an RPC provider answers again, at the next refresh at the soonest. Until then, call ' +
            'with blobs 0 to price the transaction without blobs.'
        : 'blobs: the per-block blob maximum is not known just now (the newest block read carried no blob, or ' +
            'the provider gives no blob data), so the blob count cannot be checked; the next mainnet reading ' +
            'derives it again. Until then, call with blobs 0 to price the transaction without blobs.',
      retryAfterSeconds,
    );
  }
  if (blobs > maxBlobsPerBlock) {
    throw new ToolArgumentError(
      `blobs must be from 0 to ${maxBlobsPerBlock}, the blobs one block can carry under the chain's current rules; got ${blobs}`,
    );
  }
}
