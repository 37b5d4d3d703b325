import { GasHistoryResponseSchema, toGasHistoryBody } from '../../schemas/history';
import { getGasHistory } from '../../services/gas-history';
import { rangeArgument } from '../inputs';
import { defineTool } from '../tool';

/** get_gas_history: the bucketed mainnet history of GET /api/gas-history. */
export const gasHistoryTool = defineTool({
  name: 'get_gas_history',
  title: 'Ethereum gas history',
  description:
    'Stored Ethereum mainnet gas history over a window ending now (range 10m, 30m, 2h, 6h, 1d (default), ' +
    '7d or 30d): averages of the average tier (gwei) of the 90-second snapshots in buckets aligned to ' +
    'their size, at most 300 points, oldest first. An empty store gives an empty series.',
  input: { range: rangeArgument },
  output: GasHistoryResponseSchema.omit({ citation: true, tier: true }).shape,
  async run(deps, { range }) {
    const history = await getGasHistory(deps, range);
    const body = toGasHistoryBody(history);
    const { points } = body;
    const first = points[0];
    const last = points.at(-1);
    let summary = `No stored mainnet snapshots in the last ${range} yet.`;
    if (first && last) {
      const prices = points.map((p) => p.gasPrice);
      const mean = prices.reduce((a, b) => a + b, 0) / prices.length;
      summary =
        `Mainnet gas history for ${range}: ${points.length} buckets of ${history.bucketSeconds} s from ` +
        `${first.timestamp} to ${last.timestamp}; average tier min ${Math.min(...prices)}, mean ` +
        `${Number(mean.toPrecision(4))}, max ${Math.max(...prices)} gwei; latest ${last.gasPrice} gwei.`;
    }
    return { data: body, summary, updatedAt: history.updatedAt };
  },
});
