import { z } from '@hono/zod-openapi';
import type { L2GasResult } from '../services/l2-gas';
import { type BodyOf, EnvelopeSchema } from './envelope';

/** Network ids in the order every response lists them (SPEC.md 2.10, 4.2 rule 5). */
export const L2_NETWORK_IDS = ['arbitrum', 'optimism', 'base', 'polygon'] as const;

const usd = (description: string) =>
  z
    .number()
    .nonnegative()
    .nullable()
    .openapi({
      description: `${description} Rounded to 4 significant digits, never coarser than a cent (sub-cent fees keep their digits).`,
    });

const gwei = (description: string, example: number) =>
  z
    .number()
    .nonnegative()
    .nullable()
    .openapi({
      description: `${description} Gwei of the native token, exact to 1 wei; null when unknown.`,
      example,
    });

/** One network's live reading (SPEC.md 2.10, decisions 4-6; fee suggestions of extension 17). */
export const L2NetworkReadingSchema = z
  .object({
    id: z.enum(L2_NETWORK_IDS),
    name: z.string().openapi({ example: 'Base' }),
    nativeToken: z.enum(['ETH', 'POL']).openapi({ description: 'Token gas is paid in; `POL` for Polygon.' }),
    gasPriceGwei: z
      .number()
      .positive()
      .nullable()
      .openapi({
        description:
          'Current L2 gas price (eth_gasPrice) in gwei, with sub-gwei digits down to one wei (1e-9 gwei). ' +
          'Null only when every provider failed and no reading of the last 5 minutes exists.',
        example: 0.005123,
      }),
    nativeUsd: z.number().positive().nullable().openapi({
      description: 'USD price of the native token from the price chain; null when no price source answered.',
      example: 3012.45,
    }),
    executionGasCostUsd: usd(
      'Cost of a 21,000-gas transfer at the current gas price (21,000 x gasPriceGwei x nativeUsd). Null when ' +
        'the gas price or the price is unknown.',
    ),
    estimatedL1DataFeeUsd: usd(
      'OP Stack only (Optimism, Base): L1 data fee of a serialized EIP-1559 ETH transfer, from the ' +
        'GasPriceOracle predeploy (getL1Fee), in USD at the ETH price. Null for Arbitrum and Polygon, and ' +
        'for an OP Stack network whose oracle call failed (feeCompleteness is then `execution_only`).',
    ),
    estimatedOperatorFeeUsd: usd(
      'OP Stack only (Optimism, Base), additive: operator fee of the same 21,000-gas transfer (since ' +
        "Isthmus), from the GasPriceOracle's getOperatorFee(21000), exact to the wei before conversion, in " +
        'USD at the ETH price. Paid on top of estimatedWalletFeeUsd, which (SPEC 2.10) does not include it: ' +
        'a wallet pays estimatedWalletFeeUsd + estimatedOperatorFeeUsd. 0 while the chain operator sets ' +
        'none. Null for Arbitrum and Polygon, and when it could not be read (read apart from the L1 data ' +
        'fee, whose figures and feeCompleteness it never changes; feeNote says so).',
    ),
    estimatedWalletFeeUsd: usd(
      'Wallet fee of the transfer: executionGasCostUsd + estimatedL1DataFeeUsd on OP Stack (the two served ' +
        'figures added; the operator fee, estimatedOperatorFeeUsd, is paid on top), the execution cost on ' +
        'Arbitrum and Polygon. Null when the L1 data fee is unknown; fall back to executionGasCostUsd.',
    ),
    feeCompleteness: z.enum(['execution_only', 'full_estimate']).openapi({
      description:
        '`full_estimate` when the wallet fee covers execution and the L1 data fee (Optimism, Base; Polygon, ' +
        'which has no L1 fee); `execution_only` for Arbitrum (its L1 component is charged as extra gas units) ' +
        'and for an OP Stack network whose gas price was read but not its L1 fee. With no reading at all, ' +
        "every fee is null and the network's usual value stands.",
    }),
    feeModel: z.enum(['rollup_arbitrum_nitro', 'rollup_op_stack', 'sidechain']),
    blurb: z.string().openapi({ description: 'One sentence on what the network is.' }),
    feeNote: z.string().openapi({
      description:
        'What the fee figures include, and any degradation of this reading: L1 fee or operator fee ' +
        'unavailable or kept from the last good oracle answer (with its time), served from the last good ' +
        'reading (with its time), reading unavailable, or price unavailable.',
    }),
    baseFee: gwei('Base fee per gas of the latest block (its header).', 0.005),
    maxPriorityFeePerGas: gwei(
      'Priority fee (tip) per gas to send with: Arbitrum 0 (the sequencer ignores tips); OP Mainnet and Base ' +
        "the chain's own eth_maxPriorityFeePerGas; Polygon the same but never below the 25 gwei its nodes enforce. " +
        "Null, as maxFeePerGas, when an OP Stack chain's tip could not be read or the reading is older than " +
        '60 s (feeNote says which).',
      0.001,
    ),
    maxFeePerGas: gwei(
      'Max fee per gas to send with: 2 x baseFee + maxPriorityFeePerGas, which survives a doubling of the base ' +
        'fee, counted from the reading: about 35 full blocks on OP Stack (2 s each); on Polygon (1-s blocks) ' +
        "about 83 at Bor's default adjustment, at least 15 under its 5 %-a-block consensus bound. Null with " +
        'maxPriorityFeePerGas.',
      0.011,
    ),
    estimatedL1GasUnits: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .openapi({
        description:
          'Arbitrum only: extra gas units its L1 component adds to the representative ETH transfer, from ' +
          'NodeInterface.gasEstimateL1Component at 0x00000000000000000000000000000000000000C8: the L1 posting ' +
          'cost, padded 10 % for estimates, divided by the L2 base fee, at which Nitro charges every unit; so a ' +
          'wallet pays about (21,000 + this) x baseFee, an estimate including that padding. When the call fails, ' +
          'its last good answer stands while at most 5 minutes old (`feeNote` says when it was read). Null ' +
          'elsewhere and when the call failed with no such answer.',
        example: 9_412,
      }),
  })
  .openapi('L2NetworkReading');

/** Body of GET /api/l2-gas (SPEC.md 2.10). */
export const L2GasResponseSchema = EnvelopeSchema.extend({
  networks: z.array(L2NetworkReadingSchema).length(L2_NETWORK_IDS.length).openapi({
    description:
      'Always the four networks, in the order arbitrum, optimism, base, polygon, whatever failed upstream.',
  }),
  fetchedAt: z.iso.datetime().openapi({ description: 'When this answer was assembled from the networks.' }),
}).openapi('L2GasResponse');

export type L2NetworkReading = z.infer<typeof L2NetworkReadingSchema>;
export type L2GasResponse = z.infer<typeof L2GasResponseSchema>;
export type L2GasBody = BodyOf<typeof L2GasResponseSchema>;

/** Shapes the four networks into the GET /api/l2-gas body (the get_l2_gas tool reuses it). */
export function toL2GasBody(result: L2GasResult): L2GasBody {
  return { networks: result.networks, fetchedAt: new Date(result.fetchedAt).toISOString() };
}
