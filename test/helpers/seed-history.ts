import type { DatabaseEngine } from '../../lib/store/engines';
import { insertMainnetSnapshots, type MainnetSnapshot } from '../../lib/store/history-writes';
import { SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { computeRewardPercentiles } from '../upstreams/chain-model';
import { getChainProfile, type MainnetRegime, SUB_GWEI_2026 } from '../upstreams/chain-profiles';
import { loadHourlyBaseFees, loadSubGweiHourlyBaseFees } from '../upstreams/shared-data';

const HOUR_MS = 3_600_000;
const GWEI = 1e9;

/**
 * Per regime: the real hourly series, the hour that lands on now (the simulators' chain carries on from
 * it) and the tips (gwei) the low / average / high tiers ride on.
 */
const SERIES: Record<
  MainnetRegime,
  () => { hours: { time: number; baseFeeGwei: number }[]; end: number; tips: number[] }
> = {
  // The simulators replay blocks of 29 Nov 2023; about the tips those blocks pay.
  'late-2023': () => ({
    hours: loadHourlyBaseFees(),
    end: Date.parse('2023-11-29T12:00:00Z'),
    tips: [3, 20, 50],
  }),
  // The 2026 sample up to the hour whose base fee the sub-gwei chain runs at; the tiers' tips are the
  // median 70th / 90th / 99th percentile tips of that chain's blocks, as the service computes them.
  'sub-gwei-2026': () => {
    const profile = getChainProfile('mainnet', 'sub-gwei-2026');
    const rows = [0, 1].map((n) => computeRewardPercentiles(profile.feesAt(n).tips, [70, 90, 99]));
    return {
      hours: loadSubGweiHourlyBaseFees(),
      end: SUB_GWEI_2026.level,
      tips: [0, 1, 2].map((i) => Number(rows[0]![i]! + rows[1]![i]!) / 2 / GWEI),
    };
  },
};

/**
 * Stores `days` of 90-second mainnet snapshots ending now, taken from the real hourly base fees that end
 * on the simulators' day (of `regime`: late 2023 by default, or January 2026 for `sub-gwei-2026`),
 * shifted in time; tiers ride on the base fee with the tips the simulated blocks pay (about 3 / 20 / 50
 * gwei in late 2023, 0.003 / 0.02 / 0.05 gwei in the sub-gwei regime). `scale` multiplies every fee (a
 * cheaper or dearer past than today's simulated chain). `endAt`: another hour of the series to land on
 * now (another day of it). Returns how many snapshots it wrote.
 */
export async function seedRealHistory(
  engine: DatabaseEngine,
  now: number,
  options: { days?: number; scale?: number; regime?: MainnetRegime; endAt?: number } = {},
): Promise<number> {
  const days = options.days ?? 8;
  const scale = options.scale ?? 1;
  const series = SERIES[options.regime ?? 'late-2023']();
  const end = options.endAt ?? series.end;
  const [lowTip, averageTip, highTip] = series.tips as [number, number, number];
  const hours = series.hours.filter((h) => h.time <= end && h.time > end - days * 24 * HOUR_MS);
  const shift = slotStartOf(now) - end;
  const rows: MainnetSnapshot[] = [];
  for (const { time, baseFeeGwei } of hours) {
    const base = baseFeeGwei * scale;
    for (
      let slot = slotStartOf(time + shift);
      slot < time + shift + HOUR_MS && slot < now - SLOT_MS;
      slot += SLOT_MS
    ) {
      if (slot < time + shift) continue;
      rows.push({
        slotStart: slot,
        readAt: slot + 4_000,
        blockNumber: null,
        baseFeeGwei: base,
        lowGwei: base + lowTip * scale,
        averageGwei: base + averageTip * scale,
        highGwei: base + highTip * scale,
        source: 'import',
      });
    }
  }
  return engine.withDb((db) => insertMainnetSnapshots(db, rows));
}
