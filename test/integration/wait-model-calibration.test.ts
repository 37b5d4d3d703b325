import { afterEach, describe, expect, it } from 'vitest';
import { loadRealTipBlocks } from '../upstreams/shared-data';
import { type Calibration, runCongestedMempool } from './helpers/congested-mempool';
import { type EdrNode, startEdrNode } from './helpers/edr-node';

const CAPACITY = 8;
// Arrivals draw from the 298 real effective tips of mainnet blocks 17173049-50 (ethereum-etl, MIT).
const TIPS = loadRealTipBlocks()
  .flat()
  .map((sample) => sample.tip);

/**
 * The wait model's two choices (tie rule, recency half-life) were made on seed 14 with a 50 % swing;
 * these runs use other seeds, so they measure rather than fit.
 */
const RUNS = [
  { seed: 15, swing: 0.5 },
  { seed: 16, swing: 0.5 },
  { seed: 15, swing: 0.2 },
  { seed: 16, swing: 0.2 },
];

describe('wait model calibration on EDR with a congested mempool (real mainnet tips)', () => {
  let edr: EdrNode | undefined;
  afterEach(async () => {
    await edr?.close();
  });

  it.each(RUNS)(
    'puts the real wait within p50 at least half the time and within p90 nine times in ten (seed $seed, swing $swing)',
    async ({ seed, swing }) => {
      // A tiny starting base fee so the tips, not the base fee, decide; blocks hold eight transfers and
      // arrivals average 95 % of that, swinging +/- `swing` over 30 blocks (surges above capacity).
      edr = await startEdrNode('l1', {
        chainId: 1,
        blockGasLimit: 21_000n * BigInt(CAPACITY),
        initialBaseFeePerGas: 1_000_000n,
      });
      const result: Calibration = await runCongestedMempool(edr, {
        tips: TIPS,
        capacity: CAPACITY,
        meanArrivals: CAPACITY * 0.95,
        swing,
        warmupBlocks: 25,
        measuredBlocks: 60,
        tailBlocks: 40,
        seed,
      });
      console.log(`calibration seed ${seed} swing ${swing}: ${JSON.stringify(result)}`);
      expect(result.transactions).toBeGreaterThan(300);
      expect(result.withinP50).toBeGreaterThanOrEqual(0.5);
      expect(result.withinP90).toBeGreaterThanOrEqual(0.9);
    },
  );
});
