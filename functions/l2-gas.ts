import { createRoute } from '@hono/zod-openapi';
import { envelopedAnswer, serveCached } from '../lib/http/cached-answer';
import { L2GasResponseSchema, toL2GasBody } from '../lib/schemas/l2-gas';
import { getL2Gas, L2_GAS_DEGRADED_TTL_MS, L2_LAST_GOOD_MAX_AGE_MS } from '../lib/services/l2-gas';
import type { ApiApp } from './app-env';

const route = createRoute({
  method: 'get',
  path: '/api/l2-gas',
  summary: 'Live gas on Arbitrum, Optimism, Base and Polygon',
  description:
    'Current gas price of each network (eth_gasPrice from its public RPC providers, with chain-id check and ' +
    'failover), the USD cost of a 21,000-gas transfer at the native token price, and for the OP Stack ' +
    'networks (Optimism, Base) the L1 data fee read live from the GasPriceOracle predeploy (`getL1Fee` ' +
    'on a serialized EIP-1559 ETH transfer), added to `estimatedWalletFeeUsd`, and the operator fee ' +
    "(`getOperatorFee(21000)`: 0 unless the chain's operator sets one) as `estimatedOperatorFeeUsd`, " +
    'paid on top of the wallet fee. Refreshed every 60 s.\n\n' +
    '**Partial failure** never fails the request: the answer is 200 with all four networks, in the order ' +
    'arbitrum, optimism, base, polygon. A network whose providers all fail is served from its last good ' +
    `reading (at most ${L2_LAST_GOOD_MAX_AGE_MS / 60_000} minutes old) or with null numbers, and its ` +
    "`feeNote` says which. An OP Stack network whose L1-fee call failed keeps the oracle's last good L1 fee " +
    `while it is at most ${L2_LAST_GOOD_MAX_AGE_MS / 60_000} minutes old (its \`feeNote\` says when it was read), ` +
    'else has `estimatedL1DataFeeUsd` and `estimatedWalletFeeUsd` null and `feeCompleteness: "execution_only"`. ' +
    'The operator fee is read apart and kept the same way; when unknown, `estimatedOperatorFeeUsd` alone is ' +
    "null and `feeNote` says so. Arbitrum's `estimatedL1GasUnits` (NodeInterface) is kept the same way too. " +
    'When no price source answers, ' +
    'the USD fields are null and the gwei figures are still served. A degraded answer is read again ' +
    `upstream after ${L2_GAS_DEGRADED_TTL_MS / 1000} s instead of 60 s (an operator fee missing alone does ` +
    'not degrade it); its Cache-Control is 60 s like any other.',
  responses: {
    200: {
      description: 'The four networks, complete or partly degraded (see each `feeNote`).',
      content: { 'application/json': { schema: L2GasResponseSchema } },
    },
  },
});

/**
 * The four networks, served through the fast path on the Node host. A degraded answer is read again
 * sooner (the service's TTL), but carries the path's Cache-Control like any other (SPEC decision 12).
 */
const answer = envelopedAnswer({
  read: (deps) => getL2Gas(deps),
  toBody: toL2GasBody,
  updatedAt: (result) => result.updatedAt,
});

/** Registers GET /api/l2-gas (SPEC.md 2.10, 4.2 rule 5, decisions 4-6). */
export function registerL2Gas(app: ApiApp): void {
  app.openapi(route, (c) => serveCached(c, answer, undefined));
}
