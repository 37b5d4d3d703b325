// The bounds a mainnet head is held to from the clock alone (lib/upstream/rpc-mainnet-gas.ts), on real
// heads from ../shared/data (mainnet_blob_per_block_2026-01-19_2026-01-21.csv, its first and last rows).
import { describe, expect, it } from 'vitest';
import { computeMainnetBlockCeiling, computeMainnetHeadFloor } from '../../lib/upstream/rpc-mainnet-gas';

const REAL_HEADS = [
  { number: 24_265_092, timestamp: 1_768_780_811 },
  { number: 24_283_622, timestamp: 1_769_003_999 },
];
const YEAR_S = 365 * 86_400;
/** A head `years` after the last real one at a missed-slot share and blocks per 12-s slot. */
const headAfter = (years: number, missed: number, perSlot = 1) => {
  const last = REAL_HEADS[1]!;
  const timestamp = last.timestamp + years * YEAR_S;
  return { number: Math.floor(last.number + ((years * YEAR_S) / 12) * perSlot * (1 - missed)), timestamp };
};

describe('the mainnet block ceiling', () => {
  it('lets real heads through, and heads of the next years at 12-s or 6-s slots', () => {
    for (const head of REAL_HEADS)
      expect(BigInt(head.number)).toBeLessThanOrEqual(computeMainnetBlockCeiling(head.timestamp));
    for (const years of [0.5, 1, 4]) {
      for (const head of [headAfter(years, 0), headAfter(years, 0.0078, 2)]) {
        expect(BigInt(head.number)).toBeLessThanOrEqual(computeMainnetBlockCeiling(head.timestamp));
      }
    }
  });

  it("refuses other chains' heads of the same time: Base, OP Mainnet, Arbitrum One", () => {
    for (const years of [0, 1, 4]) {
      const t = REAL_HEADS[1]!.timestamp + years * YEAR_S;
      const base = Math.floor((t - 1_686_787_200) / 2); // 2-s blocks since mid-June 2023
      for (const number of [base, 140_000_000 + years * 15_768_000, 420_000_000 + years * 126_144_000]) {
        expect(BigInt(number)).toBeGreaterThan(computeMainnetBlockCeiling(t));
      }
    }
  });
});

describe('the mainnet head floor', () => {
  it('has nothing to say before its reference time', () => {
    expect(computeMainnetHeadFloor(REAL_HEADS[0]!.timestamp * 1000)).toBeUndefined();
  });

  it('lets real heads through for years at up to 2 % of slots missed, and refuses one days behind', () => {
    for (const years of [0, 0.1, 1, 4]) {
      for (const missed of [0, 0.0078, 0.02]) {
        const head = headAfter(years, missed);
        expect(head.number).toBeGreaterThanOrEqual(computeMainnetHeadFloor(head.timestamp * 1000)!);
      }
    }
    const head = headAfter(1, 0.0078);
    const weekBehind = head.number - 7 * 7_200;
    expect(weekBehind).toBeLessThan(computeMainnetHeadFloor(head.timestamp * 1000)!);
  });
});
