import { HOUR_MS } from './hourly-series';

/** How to inject synthetic fee spikes into a real series. */
export interface SpikeOptions {
  count: number;
  seed: number;
  /** Multiplier range of a spike (20x to 100x by default). */
  minFactor?: number;
  maxFactor?: number;
  /** Duration range in whole hours (1 to 6 by default). */
  minHours?: number;
  maxHours?: number;
}

/** One injected spike: its first hour (epoch ms), length in hours and multiplier. */
export interface Spike {
  start: number;
  hours: number;
  factor: number;
}

/** Returns a seeded uniform generator on [0, 1) (mulberry32): the same seed, the same spikes. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Multiplies the values of `count` random stretches of whole hours by a random factor, as market
 * stress does to the hourly fee with no sign in the hours before: the stress test of the decision.
 * Starts are uniform over the series' hours, factors log-uniform between the bounds. Rows outside
 * every spike are returned unchanged; overlapping spikes multiply.
 */
export function injectSpikes<Row extends { time: number; value: number }>(
  rows: readonly Row[],
  options: SpikeOptions,
): { rows: Row[]; spikes: Spike[] } {
  const { count, seed, minFactor = 20, maxFactor = 100, minHours = 1, maxHours = 6 } = options;
  if (rows.length === 0 || count <= 0) return { rows: [...rows], spikes: [] };
  const random = seededRandom(seed);
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    first = Math.min(first, Math.floor(row.time / HOUR_MS));
    last = Math.max(last, Math.floor(row.time / HOUR_MS));
  }
  const spikes: Spike[] = Array.from({ length: count }, () => ({
    start: (first + Math.floor(random() * (last - first + 1))) * HOUR_MS,
    hours: minHours + Math.floor(random() * (maxHours - minHours + 1)),
    factor: minFactor * (maxFactor / minFactor) ** random(),
  }));
  const factorAt = (time: number) =>
    spikes.reduce((f, s) => (time >= s.start && time < s.start + s.hours * HOUR_MS ? f * s.factor : f), 1);
  return { rows: rows.map((row) => ({ ...row, value: row.value * factorAt(row.time) })), spikes };
}
