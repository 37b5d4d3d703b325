import { parseGwei } from 'viem';
import { describe, expect, it } from 'vitest';
import { getL2Network, L2_NETWORKS } from '../../lib/l2/networks';
import type { OperatorFeeReading } from '../../lib/l2/operator-fee';
import { presentNetwork } from '../../lib/l2/present';
import { L2NetworkReadingSchema } from '../../lib/schemas/l2-gas';
import { type L2GasResult, selectL2SnapshotRows } from '../../lib/services/l2-gas';

const NOW = Date.UTC(2026, 10, 22, 5, 0, 0);
const PRICES = { ETH: 3000, POL: 0.25 };
/** No fee-suggestion inputs: the wallet fields are not what these tests look at. */
const NO_SUGGESTION = { baseFeeWei: null, suggestedTipWei: null, l1GasUnits: null, l1GasBaseFeeWei: null };
/** An operator that sets no operator fee (both parameters 0): the fee is 0 at any gas. */
const NO_OPERATOR_FEE = { transferFeeWei: 0n, params: { scalar: 0n, constant: 0n } };
const live = (
  gasPriceWei: bigint,
  l1FeeWei: bigint | null = null,
  operatorFee: OperatorFeeReading | null = l1FeeWei === null ? null : NO_OPERATOR_FEE,
) => ({
  status: 'live' as const,
  gasPriceWei,
  l1FeeWei,
  operatorFee,
  readAt: NOW,
  ...NO_SUGGESTION,
});

describe('L2 networks', () => {
  it('lists arbitrum, optimism, base, polygon with their chain ids and fee models', () => {
    expect(L2_NETWORKS.map((n) => [n.id, n.chainId, n.feeModel, n.feeCompleteness, n.nativeToken])).toEqual([
      ['arbitrum', 42161, 'rollup_arbitrum_nitro', 'execution_only', 'ETH'],
      ['optimism', 10, 'rollup_op_stack', 'full_estimate', 'ETH'],
      ['base', 8453, 'rollup_op_stack', 'full_estimate', 'ETH'],
      ['polygon', 137, 'sidechain', 'full_estimate', 'POL'],
    ]);
  });
});

describe('presentNetwork', () => {
  it('serves a full OP Stack estimate with the L1 fee in ETH', () => {
    const { reading } = presentNetwork(
      getL2Network('base'),
      live(parseGwei('0.005'), 10n ** 12n),
      PRICES,
      NOW,
    );
    expect(L2NetworkReadingSchema.parse(reading)).toEqual(reading);
    expect(reading).toMatchObject({
      gasPriceGwei: 0.005,
      nativeUsd: 3000,
      executionGasCostUsd: 0.000315,
      estimatedL1DataFeeUsd: 0.003,
      estimatedWalletFeeUsd: 0.003315,
      feeCompleteness: 'full_estimate',
    });
    expect(reading.feeNote).toMatch(/GasPriceOracle/);
  });

  it('downgrades an OP Stack reading without its L1 fee to execution_only and says so', () => {
    const presented = presentNetwork(getL2Network('optimism'), live(parseGwei('0.001')), PRICES, NOW);
    expect(presented.l1FeeMissing).toBe(true);
    expect(presented.reading).toMatchObject({
      estimatedL1DataFeeUsd: null,
      estimatedWalletFeeUsd: null,
      feeCompleteness: 'execution_only',
    });
    expect(presented.reading.feeNote).toMatch(/^Execution cost only: the L1 data fee could not be read/);
  });

  it('serves the operator fee on its own, paid on top of the wallet fee SPEC 2.10 defines (Isthmus)', () => {
    // Isthmus: 21,000 x 1,500,000 / 1e6 + 500,000,000,000 = 500,000,031,500 wei.
    const operatorFee = {
      transferFeeWei: 500_000_031_500n,
      params: { scalar: 1_500_000n, constant: 5n * 10n ** 11n },
    };
    const { reading } = presentNetwork(
      getL2Network('base'),
      live(parseGwei('0.005'), 10n ** 12n, operatorFee),
      PRICES,
      NOW,
    );
    expect(L2NetworkReadingSchema.parse(reading)).toEqual(reading);
    expect(reading).toMatchObject({
      executionGasCostUsd: 0.000315,
      estimatedL1DataFeeUsd: 0.003,
      estimatedOperatorFeeUsd: 0.0015, // 500,000,031,500 wei at $3,000 = $0.0015000000945
      // SPEC 2.10: executionGasCostUsd + estimatedL1DataFeeUsd, the operator fee on top of it.
      estimatedWalletFeeUsd: 0.003315,
      feeCompleteness: 'full_estimate',
    });
    expect(reading.feeNote).toMatch(/Operator fee .*on top of the wallet fee.*getOperatorFee\(21000\)/);
  });

  it('serves an operator fee of 0 as 0, not as missing', () => {
    const { reading } = presentNetwork(
      getL2Network('optimism'),
      live(parseGwei('0.001'), 10n ** 12n),
      PRICES,
      NOW,
    );
    expect(reading).toMatchObject({
      estimatedOperatorFeeUsd: 0,
      estimatedWalletFeeUsd: 0.003063,
      feeCompleteness: 'full_estimate',
    });
  });

  it('keeps the L1 fee, wallet fee and full_estimate when only the operator fee is unknown, and says so', () => {
    const presented = presentNetwork(
      getL2Network('base'),
      live(parseGwei('0.005'), 10n ** 12n, null),
      PRICES,
      NOW,
    );
    expect(presented.l1FeeMissing).toBe(false);
    expect(presented.operatorFeeMissing).toBe(true);
    expect(presented.reading).toMatchObject({
      executionGasCostUsd: 0.000315,
      estimatedL1DataFeeUsd: 0.003,
      estimatedOperatorFeeUsd: null,
      estimatedWalletFeeUsd: 0.003315,
      feeCompleteness: 'full_estimate',
    });
    expect(presented.reading.feeNote).toMatch(/^Wallet fee = L2 execution .*\+ L1 data fee, read live/);
    expect(presented.reading.feeNote).not.toMatch(/L1 data fee could not be read/);
    expect(presented.reading.feeNote).toContain(
      'Operator fee unknown: getOperatorFee could not be read from the GasPriceOracle just now',
    );
  });

  it('says when a kept operator fee was read, apart from a live L1 fee', () => {
    const keptAt = NOW - 61_000;
    const presented = presentNetwork(
      getL2Network('optimism'),
      { ...live(parseGwei('0.001'), 10n ** 12n), operatorFeeReadAt: keptAt },
      PRICES,
      NOW,
    );
    expect(presented.l1FeeReadAt).toBeNull();
    expect(presented.operatorFeeReadAt).toBe(keptAt);
    expect(presented.reading.feeNote).toContain(
      `last good answer, taken at ${new Date(keptAt).toISOString()} (61 s earlier)`,
    );
    expect(presented.reading.estimatedOperatorFeeUsd).toBe(0);
  });

  it('prices Polygon in POL and keeps its wallet fee equal to the execution cost', () => {
    const { reading } = presentNetwork(getL2Network('polygon'), live(parseGwei('30')), PRICES, NOW);
    expect(reading).toMatchObject({
      nativeUsd: 0.25,
      executionGasCostUsd: 0.0001575,
      estimatedWalletFeeUsd: 0.0001575,
    });
  });

  it('names the time and age of a last good reading', () => {
    const readAt = NOW - 95_000;
    const { reading } = presentNetwork(
      getL2Network('arbitrum'),
      {
        status: 'last-good',
        gasPriceWei: parseGwei('0.01'),
        l1FeeWei: null,
        operatorFee: null,
        readAt,
        ...NO_SUGGESTION,
      },
      PRICES,
      NOW,
    );
    expect(reading.gasPriceGwei).toBe(0.01);
    expect(reading.feeNote).toContain(`taken at ${new Date(readAt).toISOString()} (95 s earlier)`);
    expect(reading.feeNote).toContain('Execution cost only: Arbitrum');
  });

  it("serves the base fee without a fee pair when the chain's tip suggestion could not be read, saying so", () => {
    const facts = { ...live(parseGwei('0.0012')), baseFeeWei: parseGwei('0.001'), suggestedTipWei: null };
    const { reading } = presentNetwork(getL2Network('optimism'), facts, PRICES, NOW);
    expect(reading).toMatchObject({ baseFee: 0.001, maxPriorityFeePerGas: null, maxFeePerGas: null });
    expect(reading.feeNote).toContain(
      "No fee pair: OP Mainnet's tip suggestion (eth_maxPriorityFeePerGas) could not be read just now.",
    );
  });

  it('suggests no fee pair from a last good reading older than the live cadence, saying why', () => {
    const facts = (readAt: number) => ({
      ...live(parseGwei('0.0012')),
      status: 'last-good' as const,
      readAt,
      baseFeeWei: parseGwei('0.001'),
      suggestedTipWei: parseGwei('0.0002'),
    });
    const optimism = getL2Network('optimism');
    // Within the cadence the pair stands: twice the base fee plus the tip.
    expect(presentNetwork(optimism, facts(NOW - 60_000), PRICES, NOW).reading).toMatchObject({
      maxPriorityFeePerGas: 0.0002,
      maxFeePerGas: 0.0022,
    });
    const { reading } = presentNetwork(optimism, facts(NOW - 290_000), PRICES, NOW);
    expect(reading).toMatchObject({ baseFee: 0.001, maxPriorityFeePerGas: null, maxFeePerGas: null });
    expect(reading.feeNote).toContain('No fee pair from a reading this old');
    // A live reading gets none past the cadence either (a shared entry at the end of its life).
    const live61 = presentNetwork(optimism, { ...facts(NOW - 61_000), status: 'live' }, PRICES, NOW);
    expect(live61.reading.maxFeePerGas).toBeNull();
  });

  it('serves null numbers with the network facts when no reading exists', () => {
    const { reading } = presentNetwork(
      getL2Network('polygon'),
      {
        status: 'unavailable',
        gasPriceWei: null,
        l1FeeWei: null,
        operatorFee: null,
        readAt: null,
        ...NO_SUGGESTION,
      },
      PRICES,
      NOW,
    );
    expect(L2NetworkReadingSchema.parse(reading)).toEqual(reading);
    expect(reading).toMatchObject({
      id: 'polygon',
      name: 'Polygon PoS',
      gasPriceGwei: null,
      executionGasCostUsd: null,
    });
    expect(reading.feeNote).toMatch(/^Reading unavailable: no Polygon PoS provider answered/);
  });

  it('keeps the gwei figures and says why USD is missing without a price', () => {
    const { reading } = presentNetwork(
      getL2Network('polygon'),
      live(parseGwei('30')),
      { ETH: 3000, POL: null },
      NOW,
    );
    expect(reading).toMatchObject({ gasPriceGwei: 30, nativeUsd: null, executionGasCostUsd: null });
    expect(reading.feeNote).toContain('no price source answered for POL');
  });
});

describe('selectL2SnapshotRows', () => {
  it('keeps only live readings that have a live or cached price', () => {
    const snapshot = (
      network: 'arbitrum' | 'optimism' | 'base' | 'polygon',
      status: 'live' | 'last-good' | 'unavailable',
      usd: number | null,
      priceStale = false,
    ) => ({
      network,
      status,
      fetchedAt: status === 'unavailable' ? null : NOW - 1000,
      gasPriceGwei: status === 'unavailable' ? null : 0.01,
      executionGasCostUsd: usd,
      l1DataFeeUsd: network === 'optimism' ? 0.002 : null,
      nativeUsd: usd === null ? null : 3000,
      gasPriceWei: status === 'unavailable' ? null : 10_000_000n,
      l1FeeWei: null,
      l1FeeReadAt: null,
      operatorFee: null,
      operatorFeeReadAt: null,
      l1ComponentWei: null,
      l1ComponentReadAt: null,
      priceStale,
      retryAt: null,
    });
    const result: L2GasResult = {
      fetchedAt: NOW,
      updatedAt: NOW - 1000,
      networks: [],
      degraded: true,
      snapshots: [
        snapshot('arbitrum', 'live', 0.00063),
        snapshot('optimism', 'live', 0.00063),
        snapshot('base', 'last-good', 0.0003),
        snapshot('polygon', 'live', null),
        // A live gas price priced with a last good (stale-*) price: its USD figures are minutes old.
        snapshot('base', 'live', 0.0003, true),
      ],
    };
    expect(selectL2SnapshotRows(result)).toEqual([
      {
        network: 'arbitrum',
        readAt: NOW - 1000,
        gasPriceGwei: 0.01,
        executionGasCostUsd: 0.00063,
        l1DataFeeUsd: null,
        nativeUsd: 3000,
      },
      {
        network: 'optimism',
        readAt: NOW - 1000,
        gasPriceGwei: 0.01,
        executionGasCostUsd: 0.00063,
        l1DataFeeUsd: 0.002,
        nativeUsd: 3000,
      },
    ]);
  });
});
