import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { createTestDeps } from '../helpers/deps';

type Schema = { description?: string; properties?: Record<string, Schema>; $ref?: string; allOf?: Schema[] };

describe('OpenAPI documents the wallet-grade fields (SPEC.md extensions 16 and 17)', () => {
  it('validates, and gives every new field a description with its unit or range', async () => {
    const res = await createApp(createTestDeps()).request('/openapi.json');
    const doc = (await res.json()) as { components: { schemas: Record<string, Schema> } };
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    const schemas = doc.components.schemas;
    const gas = schemas.GasResponse?.properties ?? {};
    const units: Record<string, RegExp> = {
      nextBaseFee: /gwei/i,
      blobBaseFee: /gwei/i,
      nextBlobBaseFee: /gwei/i,
      blobGasUsedRatio: /0 to 1/,
      maxBlobsPerBlock: /blobs/i,
      gasUsedRatio: /0 to 1/,
      baseFeeTrend: /rising/,
      baseFeePercentile7d: /0 \(cheapest\) to 100/,
      tiers: /fee pairs/i,
    };
    for (const [field, unit] of Object.entries(units)) expect(gas[field]?.description, field).toMatch(unit);
    const tier = schemas.WalletTier?.properties ?? {};
    expect(tier.maxPriorityFeePerGas?.description).toMatch(/gwei/i);
    expect(tier.maxFeePerGas?.description).toMatch(/full blocks/);
    expect(tier.estimatedWaitSeconds?.description).toMatch(/12-second slots/);
    const l2 = schemas.L2NetworkReading?.properties ?? {};
    for (const field of ['baseFee', 'maxPriorityFeePerGas', 'maxFeePerGas']) {
      expect(l2[field]?.description, field).toMatch(/gwei/i);
    }
    expect(l2.maxPriorityFeePerGas?.description).toMatch(/25 gwei/);
    expect(l2.estimatedL1GasUnits?.description).toMatch(/gasEstimateL1Component/);
    expect(l2.estimatedL1GasUnits?.description).toMatch(/padd/);
    expect(l2.estimatedOperatorFeeUsd?.description).toMatch(/getOperatorFee\(21000\)/);
    expect(l2.estimatedOperatorFeeUsd?.description).toMatch(/on top of estimatedWalletFeeUsd/);
    expect(l2.estimatedWalletFeeUsd?.description).toMatch(/executionGasCostUsd \+ estimatedL1DataFeeUsd/);
  });
});
