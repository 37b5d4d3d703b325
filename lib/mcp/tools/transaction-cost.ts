import { formatGwei, parseGwei } from 'viem';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { getL2Network, type L2NetworkId } from '../../l2/networks';
import { getCurrentGas } from '../../services/current-gas';
import { getEthPrice } from '../../services/eth-price';
import { getL2Gas } from '../../services/l2-gas';
import { COST_NETWORKS, enumArgument, gasLimitArgument, TIERS } from '../inputs';
import { defineTool, type ToolOutput, ToolUnavailableError } from '../tool';
import { computeTransactionCost } from '../transaction-cost';
import { describeCost, l2Notes, mainnetNotes } from './transaction-cost-text';

const FeeAmountSchema = z.object({
  gwei: z.number().nonnegative().describe('In gwei of the native token (1 gwei = 1e-9 ETH or POL).'),
  native: z.number().nonnegative().describe('In the native token (ETH, or POL on Polygon).'),
  usd: z.number().nonnegative().nullable().describe('In USD; null when no price source answered.'),
});

const output = {
  network: z.enum(COST_NETWORKS),
  networkName: z.string(),
  nativeToken: z.enum(['ETH', 'POL']),
  gasLimit: z.number().int().positive(),
  tier: z.enum(TIERS).nullable().describe('Mainnet tier used; null on an L2, which has one gas price.'),
  gasPriceGwei: z.number().positive().describe('Fee per gas used, gwei of the native token.'),
  nativeUsd: z.number().positive().nullable(),
  execution: FeeAmountSchema.describe('gasLimit x gasPriceGwei: the most the execution costs at this price.'),
  l1DataFee: FeeAmountSchema.nullable().describe(
    'OP Stack only (Optimism, Base): L1 data fee of a representative ETH transfer, paid in ETH; null ' +
      'elsewhere or when it could not be read or priced.',
  ),
  total: FeeAmountSchema.nullable().describe(
    'execution + l1DataFee; null when an L1 data fee applies but is unknown.',
  ),
  feeCompleteness: z.enum(['execution_only', 'full_estimate']),
  notes: z.array(z.string()).describe('What the figures include and how far to trust them.'),
  updatedAt: z.iso.datetime().describe('When the gas price was read upstream.'),
};

type Args = {
  gasLimit: number;
  network: (typeof COST_NETWORKS)[number];
  tier?: (typeof TIERS)[number] | undefined;
};

/** estimate_transaction_cost: a gas limit priced on mainnet (per tier) or an L2, in gwei, token and USD. */
export const transactionCostTool = defineTool({
  name: 'estimate_transaction_cost',
  title: 'Estimate a transaction cost',
  description:
    'Cost of a transaction using `gasLimit` gas (default 21,000, a plain transfer) on Ethereum mainnet at ' +
    'the low, average (default) or high tier, or on Arbitrum, Optimism, Base or Polygon at the current ' +
    'gas price: in gwei, in the native token (ETH; POL on Polygon) and in USD. On Optimism and Base the ' +
    'L1 data fee of a representative ETH transfer is added; read `notes` for what each figure includes.',
  input: {
    gasLimit: gasLimitArgument,
    network: enumArgument('network', COST_NETWORKS, 'Network to price on (default mainnet).')
      .optional()
      .default('mainnet'),
    tier: enumArgument(
      'tier',
      TIERS,
      'Mainnet tier: low (economy), average (default) or high (fast).',
    ).optional(),
  },
  output,
  run: (deps, args) =>
    args.network === 'mainnet' ? estimateMainnet(deps, args) : estimateL2(deps, args, args.network),
});

async function estimateMainnet(deps: AppDeps, args: Args): Promise<ToolOutput<typeof output>> {
  const tier = args.tier ?? 'average';
  const [gas, price] = await Promise.all([getCurrentGas(deps), getEthPrice(deps)]);
  const gasPriceGwei = gas[tier];
  const cost = computeTransactionCost({
    gasLimit: args.gasLimit,
    gasPriceWei: parseGwei(gasPriceGwei.toFixed(9)),
    nativeUsd: price.usd,
    l1DataFee: 'none',
  });
  const data = {
    network: 'mainnet' as const,
    networkName: 'Ethereum mainnet',
    nativeToken: 'ETH' as const,
    gasLimit: args.gasLimit,
    tier,
    gasPriceGwei,
    nativeUsd: price.usd,
    ...cost,
    feeCompleteness: 'full_estimate' as const,
    notes: mainnetNotes(tier, gas.source, price.usd === null),
    updatedAt: gas.updatedAt,
  };
  return { data, summary: describeCost(data), updatedAt: gas.updatedAt };
}

async function estimateL2(deps: AppDeps, args: Args, id: L2NetworkId): Promise<ToolOutput<typeof output>> {
  const network = getL2Network(id);
  const result = await getL2Gas(deps);
  const reading = result.networks.find((n) => n.id === network.id);
  const snapshot = result.snapshots.find((s) => s.network === network.id);
  if (!reading || !snapshot || snapshot.gasPriceWei === null || snapshot.fetchedAt === null) {
    throw new ToolUnavailableError(
      `${network.name} gas price unavailable: no provider answered and no reading of the last 5 minutes exists; retry shortly.`,
    );
  }
  const cost = computeTransactionCost({
    gasLimit: args.gasLimit,
    gasPriceWei: snapshot.gasPriceWei,
    nativeUsd: reading.nativeUsd,
    l1DataFee: network.hasL1DataFee ? { wei: snapshot.l1FeeWei } : 'none',
  });
  const updatedAt = new Date(snapshot.fetchedAt).toISOString();
  const data = {
    network: network.id,
    networkName: network.name,
    nativeToken: network.nativeToken,
    gasLimit: args.gasLimit,
    tier: null,
    gasPriceGwei: Number(formatGwei(snapshot.gasPriceWei)),
    nativeUsd: reading.nativeUsd,
    ...cost,
    feeCompleteness:
      network.hasL1DataFee && cost.l1DataFee === null ? ('execution_only' as const) : reading.feeCompleteness,
    notes: l2Notes({
      network,
      reading,
      status: snapshot.status,
      readAt: updatedAt,
      tierGiven: args.tier,
      cost,
    }),
    updatedAt,
  };
  return { data, summary: describeCost(data), updatedAt: snapshot.fetchedAt };
}
