import { GasResponseSchema, toGasBody } from '../../schemas/current-gas';
import { getCurrentGas } from '../../services/current-gas';
import { defineTool } from '../tool';

/** get_current_gas: the mainnet tiers now, as GET /api/gas serves them. */
export const currentGasTool = defineTool({
  name: 'get_current_gas',
  title: 'Current Ethereum gas',
  description:
    'Current Ethereum mainnet fee per gas in gwei for three tiers: low (economy, about the 70th percentile ' +
    'priority fee), average (about the 90th) and high (fast, about the 99th), each including the next ' +
    'block base fee; with the base fee, the block it was read at, the upstream that served it and when. ' +
    'A `source` starting with `stale:` is a last good reading at most 5 minutes old.',
  input: {},
  output: GasResponseSchema.omit({ citation: true, tier: true }).shape,
  async run(deps) {
    const body = toGasBody(await getCurrentGas(deps));
    const { low, average, high, baseFee, blockNumber, source, updatedAt } = body;
    return {
      data: body,
      summary:
        `Ethereum mainnet gas now: low ${low}, average ${average}, high ${high} gwei ` +
        `(base fee ${baseFee} gwei, block ${blockNumber}, source ${source}, read ${updatedAt}).`,
      updatedAt,
    };
  },
});
