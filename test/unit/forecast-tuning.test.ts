import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../lib/forecast/backtest';
import { type DecisionReplay, summariseReplays } from '../../lib/forecast/decision-replay';
import { deriveAverageProfile } from '../../lib/forecast/derive-profile';
import { heldOutStart, selectTuningRows } from '../../lib/forecast/held-out';
import { buildLogSeries } from '../../lib/forecast/hourly-series';
import { DEFAULT_FORECAST_PARAMS } from '../../lib/forecast/params';
import { knownLevelPath, objectiveOf, scorePointForecasts } from '../../lib/forecast/tune-score';

const HOUR = 3_600_000;
const START = Date.parse('2024-01-01T00:35:00Z');

/** Sixteen days of a daily cycle with a slow drift and some noise, on an off-the-hour minute grid. */
const rows = Array.from({ length: 16 * 24 }, (_, h) => ({
  time: START + h * HOUR,
  value:
    20 *
    Math.exp(0.5 * Math.cos((2 * Math.PI * ((h % 24) - 15)) / 24) + 0.2 * Math.sin(h / 50)) *
    (1 + 0.1 * Math.sin(h * 3.7)),
}));

describe('selectTuningRows', () => {
  it('keeps exactly the hours before the held-out last third', () => {
    const kept = selectTuningRows(rows);
    expect(kept).toHaveLength(heldOutStart(rows.length));
    expect(kept).toHaveLength(256);
    const cut = Math.floor(START / HOUR) + 256;
    expect(kept.every((row) => Math.floor(row.time / HOUR) < cut)).toBe(true);
    expect(rows.filter((row) => Math.floor(row.time / HOUR) >= cut)).toHaveLength(128);
  });

  it('cuts where the back-test starts its held-out part, so tuning sees no held-out hour', () => {
    const full = runBacktest(rows);
    const tuningOnly = runBacktest(selectTuningRows(rows));
    expect(tuningOnly.whole.origins).toBe(full.tuning.origins);
    expect(tuningOnly.whole.maeGwei).toEqual(full.tuning.maeGwei);
    expect(tuningOnly.whole.decision).toEqual(full.tuning.decision);
    expect(full.heldOut.firstOrigin).toBe(new Date((Math.floor(START / HOUR) + 256) * HOUR).toISOString());
  });
});

describe('scorePointForecasts', () => {
  it('scores the point forecasts as the full back-test does', () => {
    const series = buildLogSeries(rows);
    const fast = scorePointForecasts(series, DEFAULT_FORECAST_PARAMS);
    const { whole } = runBacktest(rows);
    expect(fast.origins).toBe(whole.origins);
    // The back-test rounds each forecast to 4 significant digits; nothing else differs.
    expect(fast.mae.model).toBeCloseTo(whole.maeGwei.model, 2);
    expect(fast.mae.persistence).toBeCloseTo(whole.maeGwei.persistence, 3);
    expect(fast.ratio.vsSameHourYesterday).toBeCloseTo(whole.maeRatio.vsSameHourYesterday, 2);
  });

  it('reuses cached weekly shapes without changing the score, and ranks a worse model worse', () => {
    const series = buildLogSeries(rows);
    const cache = new Map();
    const first = scorePointForecasts(series, DEFAULT_FORECAST_PARAMS, cache);
    expect(cache.size).toBe(1);
    const again = scorePointForecasts(series, DEFAULT_FORECAST_PARAMS, cache);
    expect(again).toEqual(first);
    // Pinning every forecast to the current reading (persistence) must score no better.
    const pinned = scorePointForecasts(
      series,
      { ...DEFAULT_FORECAST_PARAMS, anchorFloor: 1, priorWeeks: 0, shrinkCount: 1e9, profileWeeks: 0 },
      cache,
    );
    expect(objectiveOf([pinned])).toBeGreaterThan(objectiveOf([first]));
  });
});

describe('deriveAverageProfile', () => {
  it('averages the shapes learned from each series, centred on zero', () => {
    const shaped = (amplitude: number) =>
      buildLogSeries(
        Array.from({ length: 21 * 24 }, (_, h) => ({
          time: Date.parse('2024-01-01T00:00:00Z') + h * HOUR,
          value: 10 * Math.exp(amplitude * Math.cos((2 * Math.PI * ((h % 24) - 15)) / 24)),
        })),
      );
    const profile = deriveAverageProfile([shaped(0.2), shaped(0.6)]);
    expect(profile).toHaveLength(168);
    expect(Math.abs(profile.reduce((a, b) => a + b, 0) / 168)).toBeLessThan(1e-3);
    // Peak at 15:00 and trough at 03:00 of every day, with the mean amplitude 0.4.
    expect(profile[15]).toBeCloseTo(0.4, 1);
    expect(profile[3]).toBeCloseTo(-0.4, 1);
    expect(deriveAverageProfile([shaped(0.4)])[24 + 15]).toBeCloseTo(profile[24 + 15] ?? 0, 2);
  });
});

describe('knownLevelPath', () => {
  it("forecasts the shape around the coming day's median level, which one spike does not move", () => {
    // Hours 0..99 at log 1, then a day at log 2 with one spike to 9; a flat weekly shape.
    const values = [...Array(100).fill(1), ...Array(24).fill(2)];
    values[110] = 9;
    const series = { start: 0, values: Float64Array.from(values) };
    const model = {
      series: { start: 0, values: series.values.slice(0, 100) },
      profile: new Float64Array(168),
      params: { ...DEFAULT_FORECAST_PARAMS, recentShapeWeight: 0 },
    };
    expect(knownLevelPath(model, series, 99, 24)).toEqual(Array(24).fill(2));
    // With a weekly shape, the level is measured after it and the shape rides on it again.
    const shaped = { ...model, profile: Float64Array.from({ length: 168 }, (_, how) => (how % 2) / 10) };
    const path = knownLevelPath(shaped, series, 99, 24);
    path.forEach((v, k) => {
      expect(v).toBeCloseTo(1.95 + (shaped.profile[(100 + k + 72) % 168] ?? Number.NaN), 12);
    });
  });
});

describe('summariseReplays', () => {
  /** One copy's replay: nothing saved and no wait unless said. */
  const replay = (fields: Partial<DecisionReplay>): DecisionReplay => ({
    oraclePct: 40,
    savingPct: 0,
    baselineSavingPct: 0,
    waits: 0,
    dearer: 0,
    severe: 0,
    ...fields,
  });

  it('averages each share over the copies as the --seeds sweep does, and pools the severe share apart', () => {
    const calm = replay({ savingPct: 10, baselineSavingPct: 12, waits: 100, dearer: 10, severe: 1 });
    const spiked = replay({
      oraclePct: 80,
      savingPct: 2,
      baselineSavingPct: -4,
      waits: 10,
      dearer: 2,
      severe: 1,
    });
    const summary = summariseReplays([calm, spiked]);
    // Shares of each copy's own oracle, averaged: (10/40 + 2/80) / 2 and (12/40 - 4/80) / 2. Pooling
    // the savings ((10 + 2) / (40 + 80)) would give another figure.
    expect(summary.shareOfOracle).toBeCloseTo(0.1375, 12);
    expect(summary.baselineShareOfOracle).toBeCloseTo(0.125, 12);
    expect(summary.beatsBaseline).toBe(true);
    // Dearer (10/100 + 2/10) / 2; severe (1/100 + 1/10) / 2, against 2 of 110 waits pooled.
    expect(summary.dearer).toBeCloseTo(0.15, 12);
    expect(summary.severe).toBeCloseTo(0.055, 12);
    expect(summary.pooledSevere).toBeCloseTo(2 / 110, 12);
    expect(summary.waits).toBe(110);
  });

  it("compares the decision's mean share of the oracle's saving with the baseline's, not its mean saving", () => {
    // In points the decision is ahead on average ((-2 + 3) / 2 > 0); in shares of each oracle it is
    // behind ((-2/10 + 3/100) / 2 < 0), as shareOfOracle against baselineShareOfOracle says.
    const a = replay({ oraclePct: 10, savingPct: 3, baselineSavingPct: 5, waits: 5 });
    const b = replay({ oraclePct: 100, savingPct: 40, baselineSavingPct: 37, waits: 5 });
    const summary = summariseReplays([a, b]);
    expect(summary.shareOfOracle).toBeLessThan(summary.baselineShareOfOracle);
    expect(summary.beatsBaseline).toBe(false);
  });

  it('counts a copy with no wait as a copy with no dearer and no severe wait, and refuses an empty list', () => {
    const idle = replay({ baselineSavingPct: 5 });
    const busy = replay({ savingPct: 8, baselineSavingPct: 5, waits: 50, dearer: 10, severe: 2 });
    // (0 + 10/50) / 2 and (0 + 2/50) / 2: the idle copy halves the shares rather than dropping out.
    expect(summariseReplays([idle, busy])).toMatchObject({ waits: 50, pooledSevere: 0.04 });
    expect(summariseReplays([idle, busy]).dearer).toBeCloseTo(0.1, 12);
    expect(summariseReplays([idle, busy]).severe).toBeCloseTo(0.02, 12);
    expect(summariseReplays([idle])).toMatchObject({
      dearer: 0,
      severe: 0,
      pooledSevere: 0,
      beatsBaseline: false,
    });
    expect(() => summariseReplays([])).toThrow(/no replay/);
  });
});
