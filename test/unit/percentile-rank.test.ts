import { describe, expect, it } from 'vitest';
import { computePercentileRank, rankAmong } from '../../lib/forecast/percentile-rank';

describe('percentile rank', () => {
  it('ranks by mid-rank: share below plus half the ties, 0 to 100', () => {
    expect(rankAmong(1, [1, 2, 3, 4])).toBe(12.5);
    expect(rankAmong(5, [1, 2, 3, 4])).toBe(100);
    expect(rankAmong(0.5, [1, 2, 3, 4])).toBe(0);
    expect(rankAmong(2, [2, 2, 2])).toBe(50);
    expect(rankAmong(2.5, [1, 2, 3, 4])).toBe(50);
  });

  it('is null for an empty sample and agrees with counts made elsewhere (SQL)', () => {
    expect(rankAmong(1, [])).toBeNull();
    expect(computePercentileRank({ below: 0, equal: 0, total: 0 })).toBeNull();
    expect(computePercentileRank({ below: 671, equal: 2, total: 6720 })).toBe(10);
  });
});
