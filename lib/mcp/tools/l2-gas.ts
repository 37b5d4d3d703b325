import { z } from 'zod';
import {
  L2_NETWORK_IDS,
  type L2NetworkReading,
  L2NetworkReadingSchema,
  toL2GasBody,
} from '../../schemas/l2-gas';
import { getL2Gas, l2RetryAfterSeconds } from '../../services/l2-gas';
import { enumArgument } from '../inputs';
import { defineTool, ToolUnavailableError } from '../tool';

/** get_l2_gas: the GET /api/l2-gas readings, all four networks or the one asked for. */
export const l2GasTool = defineTool({
  name: 'get_l2_gas',
  title: 'Layer 2 gas',
  description:
    'Current gas price (gwei) on Arbitrum, Optimism, Base and Polygon with the USD cost of a 21,000-gas ' +
    'transfer; for the OP Stack networks (Optimism, Base) also the L1 data fee read live from the chain gas ' +
    'price oracle, the resulting wallet fee, and the operator fee paid on top of it. Polygon gas is paid in ' +
    'POL. Each `feeNote` says what ' +
    'the figures include and any degradation. Give `network` for one network, omit it for all four.',
  input: {
    network: enumArgument('network', L2_NETWORK_IDS, 'One L2 network; omit for all four.').optional(),
  },
  output: {
    networks: z.array(L2NetworkReadingSchema).min(1).max(L2_NETWORK_IDS.length),
    fetchedAt: z.iso.datetime(),
  },
  async run(deps, { network }) {
    const result = await getL2Gas(deps);
    const body = toL2GasBody(result);
    const networks = network ? body.networks.filter((n) => n.id === network) : body.networks;
    const statusOf = (id: string) => result.snapshots.find((s) => s.network === id);
    if (networks.every((n) => n.gasPriceGwei === null)) {
      // Asking again can first help when the first of them is tried again; until 2026-11-28 no time was given.
      const waits = networks.map((n) => l2RetryAfterSeconds(statusOf(n.id) ?? { retryAt: null }, deps.now()));
      throw new ToolUnavailableError(
        networks.map((n) => `${n.name}: ${n.feeNote}`).join(' '),
        Math.min(...waits),
      );
    }
    const lines = networks.map((n) => {
      if (n.gasPriceGwei === null) return `${n.name}: unavailable.`;
      const snapshot = statusOf(n.id);
      const read =
        snapshot?.status === 'last-good' && snapshot.fetchedAt !== null
          ? ` (last good reading of ${new Date(snapshot.fetchedAt).toISOString()}: live providers did not answer)`
          : '';
      const fee = n.estimatedWalletFeeUsd ?? n.executionGasCostUsd;
      // The operator fee is read apart from the L1 fee: it is said whether or not the L1 fee was read.
      // (No USD cost means no ETH price: the operator fee has none either.)
      const costText =
        n.feeCompleteness === 'execution_only'
          ? `transfer about $${fee} in execution alone (execution_only: its L1 part comes on top)`
          : `transfer about $${fee} (${n.feeCompleteness})`;
      const feeText = fee === null ? 'USD cost unknown' : `${costText}${operatorFeeText(n)}`;
      return `${n.name}: ${n.gasPriceGwei} gwei${read}, ${feeText}.`;
    });
    const allLive = networks.every((n) => statusOf(n.id)?.status === 'live');
    return {
      data: { networks, fetchedAt: body.fetchedAt },
      summary: `Layer 2 gas${allLive ? ' now' : ''}. ${lines.join(' ')}`,
      updatedAt: result.updatedAt,
    };
  },
});

/** What an OP Stack network's operator fee adds on top of the fee its summary line states (0: nothing). */
function operatorFeeText(n: L2NetworkReading): string {
  if (n.feeModel !== 'rollup_op_stack' || n.estimatedOperatorFeeUsd === 0) return '';
  return n.estimatedOperatorFeeUsd === null
    ? ' plus an operator fee that could not be read just now'
    : ` plus an operator fee of about $${n.estimatedOperatorFeeUsd}`;
}
