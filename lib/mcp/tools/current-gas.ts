import { GasResponseSchema, toGasBody } from '../../schemas/current-gas';
import { getCurrentGas, STALE_PREFIX } from '../../services/current-gas';
import { defineTool } from '../tool';
import { describeStaleReading } from './transaction-cost-text';

/** get_current_gas: the mainnet tiers now, as GET /api/gas serves them. */
export const currentGasTool = defineTool({
  name: 'get_current_gas',
  title: 'Current Ethereum gas',
  description:
    'Current Ethereum mainnet fee per gas in gwei for three tiers: low (economy, about the 70th percentile ' +
    'priority fee), average (about the 90th) and high (fast, about the 99th), each including the next ' +
    'block base fee; with the base fee, the block it was read at, the upstream that served it and when. ' +
    'Also ready-to-send EIP-1559 pairs per tier (`tiers.<tier>.maxPriorityFeePerGas` / `maxFeePerGas`) ' +
    'with the expected wait (p50 / p90 seconds), the exact next base fee, blob fees (EIP-4844) and ' +
    'congestion (gas-used ratio, base-fee trend, percentile of the last 7 days). ' +
    'A `source` starting with `stale:` is a last good reading at most 5 minutes old (every upstream is ' +
    'failing): its max fees are widened for the blocks that may have been mined since (`walletFeesNote`).',
  input: {},
  output: GasResponseSchema.omit({ citation: true, tier: true }).shape,
  async run(deps) {
    const body = toGasBody(await getCurrentGas(deps));
    const { low, average, high, baseFee, blockNumber, source, updatedAt, tiers } = body;
    const wait = tiers.average.estimatedWaitSeconds;
    const stale = source.startsWith(STALE_PREFIX) ? describeStaleReading(updatedAt, deps.now()) : null;
    const pair =
      `maxPriorityFeePerGas ${tiers.average.maxPriorityFeePerGas}, maxFeePerGas ${tiers.average.maxFeePerGas} gwei` +
      `${stale ? ', widened for the blocks since that reading' : ''}` +
      `${wait ? `, about ${wait.p50} s (p90 ${wait.p90} s)` : ''}`;
    return {
      data: body,
      summary:
        `Ethereum mainnet gas ${stale ? `from ${stale}` : 'now'}: low ${low}, average ${average}, high ${high} gwei ` +
        `(base fee ${baseFee} gwei, block ${blockNumber}, source ${source}, read ${updatedAt}). ` +
        `Average tier: ${pair}.`,
      updatedAt,
    };
  },
});
