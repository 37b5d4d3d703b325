import { describe, expect, it } from 'vitest';
import { forecastGas, type HourlyGasPoint } from '../../lib/forecast';
import {
  measureOutcome,
  NOTHING_SCORED,
  type ScorableForecast,
  scoreForecasts,
} from '../../lib/forecast/accuracy';
import { replayableOrigins, replayForecasts, replayOrigins } from '../../lib/forecast/accuracy-replay';
import { runBacktest } from '../../lib/forecast/backtest';

const HOUR_MS = 3_600_000;
const H = Date.UTC(2026, 10, 1, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const leads = <T>(f: (k: number) => T) => Array.from({ length: 24 }, (_, i) => f(i + 1));

/** Three forecasts whose scores are worked out by hand below, and one that cannot be scored. */
function handWorked(): ScorableForecast[] {
  return [
    {
      // Waits for hour 3, which came in at 7 against 10 now: saved 30 %, as much as the oracle.
      originHour: H,
      current: 10,
      points: leads((k) => ({ average: 10, confidence: k <= 12 ? 0.45 : 0.75 })),
      decision: { recommendation: 'wait', nextBestAt: iso(H + 3 * HOUR_MS) },
      outcome: { actual: leads((k) => (k === 3 ? 7 : 12)), sameHourYesterday: leads(() => 9) },
    },
    {
      // Sends at once; every hour came in at 30. Hours 1-6 have no same-hour-yesterday value.
      originHour: H + HOUR_MS,
      current: 10,
      points: leads(() => ({ average: 20, confidence: 0.95 })),
      decision: { recommendation: 'send_now', nextBestAt: iso(H + HOUR_MS) },
      outcome: { actual: leads(() => 30), sameHourYesterday: leads((k) => (k <= 6 ? null : 30)) },
    },
    {
      // Waits for hour 2, which came in at 25 against 10 now: dearer, and above twice the price.
      originHour: H + 2 * HOUR_MS,
      current: 10,
      points: leads(() => ({ average: 10, confidence: 0.55 })),
      decision: { recommendation: 'wait', nextBestAt: iso(H + 4 * HOUR_MS) },
      outcome: { actual: leads(() => 25), sameHourYesterday: leads(() => 10) },
    },
    {
      // Hour 5 was never stored: the decision cannot be judged, so the forecast is not scored.
      originHour: H + 3 * HOUR_MS,
      current: 10,
      points: leads(() => ({ average: 10, confidence: 0.15 })),
      decision: { recommendation: 'send_now', nextBestAt: iso(H + 3 * HOUR_MS) },
      outcome: { actual: leads((k) => (k === 5 ? null : 10)), sameHourYesterday: leads(() => 10) },
    },
  ];
}

describe('scoreForecasts', () => {
  it('scores stored forecasts against their outcomes as worked out by hand', () => {
    const figures = scoreForecasts(handWorked(), 1.25);
    expect(figures.origins).toBe(3);
    expect(figures.scoredFrom).toBe(iso(H));
    expect(figures.scoredTo).toBe(iso(H + 2 * HOUR_MS));
    // 66 hours have a same-hour-yesterday value: 24 + 18 + 24. Model errors 49 + 180 + 360,
    // persistence 49 + 360 + 360, same hour yesterday 71 + 0 + 360.
    expect(figures.mae).toEqual({
      model: Number((589 / 66).toPrecision(4)),
      persistence: Number((769 / 66).toPrecision(4)),
      sameHourYesterday: Number((431 / 66).toPrecision(4)),
    });
    expect(figures.maeByLeadHours).toHaveLength(24);
    expect(figures.maeByLeadHours?.[0]).toEqual({ hoursAhead: 1, mae: 8.5 }); // (2 + 15) / 2
    expect(figures.maeByLeadHours?.[2]).toEqual({ hoursAhead: 3, mae: 9 }); // (3 + 15) / 2
    expect(figures.maeByLeadHours?.[6]).toEqual({ hoursAhead: 7, mae: 9 }); // (2 + 10 + 15) / 3
    // Bands of stated confidence 0.2 wide. 0.4-0.6: 12 hours said 0.45 (11 within a factor 1.25; hour 3
    // came in at 0.7x) and 24 said 0.55 (none within: 2.5x); 0.6-0.8: 12 said 0.75, all within;
    // 0.8-1: 24 said 0.95, none within (1.5x).
    expect(figures.calibration).toEqual([
      { from: 0, to: 0.2, count: 0, statedMean: null, observed: null },
      { from: 0.2, to: 0.4, count: 0, statedMean: null, observed: null },
      { from: 0.4, to: 0.6, count: 36, statedMean: 0.517, observed: 0.306 },
      { from: 0.6, to: 0.8, count: 12, statedMean: 0.75, observed: 1 },
      { from: 0.8, to: 1, count: 24, statedMean: 0.95, observed: 0 },
    ]);
    expect(figures.decision).toEqual({
      waits: 2,
      realizedSavingPct: -40, // (30 + 0 - 150) / 3
      oracleSavingPct: 10, // (30 + 0 + 0) / 3
      dearerWaitsPct: 50,
      severeWaitsPct: 50,
    });
  });

  it('answers origins 0 and null figures when nothing can be scored', () => {
    const { origins, ...figures } = NOTHING_SCORED;
    expect(origins).toBe(0);
    expect(Object.values(figures).every((value) => value === null)).toBe(true);
    expect(scoreForecasts([])).toEqual(NOTHING_SCORED);
    expect(scoreForecasts(handWorked().slice(3))).toEqual(NOTHING_SCORED);
  });

  it('gives no dearer or severe share when no forecast said wait', () => {
    const figures = scoreForecasts(handWorked().slice(1, 2));
    expect(figures.decision).toEqual({
      waits: 0,
      realizedSavingPct: 0,
      oracleSavingPct: 0,
      dearerWaitsPct: null,
      severeWaitsPct: null,
    });
  });
});

describe('measureOutcome', () => {
  it('reads the 24 hours after the origin and the same hours a day earlier, null where none was stored', () => {
    const stored = new Map([
      [H + HOUR_MS, 5],
      [H + 24 * HOUR_MS, 6],
      [H - 23 * HOUR_MS, 4],
    ]);
    const outcome = measureOutcome(H, (time) => stored.get(time));
    expect(outcome.actual).toEqual(leads((k) => (k === 1 ? 5 : k === 24 ? 6 : null)));
    expect(outcome.sameHourYesterday).toEqual(leads((k) => (k === 1 ? 4 : null)));
  });
});

describe('replayForecasts', () => {
  /** Ten days of hourly means with a daily shape, one hour missing on day 9. */
  const hours: HourlyGasPoint[] = Array.from({ length: 240 }, (_, i) => {
    const average = 10 + 4 * Math.sin((i / 24) * 2 * Math.PI);
    return { time: H + i * HOUR_MS, low: average * 0.9, average, high: average * 1.1 };
  }).filter((point) => point.time !== H + 200 * HOUR_MS);

  it('replays, from a week of history on, every hour whose 24 hours were all stored', () => {
    const replayed = replayForecasts(hours, H);
    // Origins 168..215 have their 24 hours; those within 24 hours before hour 200, or at it, do not.
    const expected = Array.from({ length: 48 }, (_, i) => 168 + i).filter((i) => i < 176 || i > 200);
    expect(replayed.map((f) => (f.originHour - H) / HOUR_MS)).toEqual(expected);
  });

  it('gives the forecast the service would have served from the hours before the origin', () => {
    const origin = H + 170 * HOUR_MS;
    const [replayed] = replayForecasts(hours, origin);
    const point = hours.find((p) => p.time === origin) as HourlyGasPoint;
    const served = forecastGas({
      history: hours.filter((p) => p.time < origin),
      current: point,
      now: origin,
      horizon: '24h',
    });
    expect(replayed?.originHour).toBe(origin);
    expect(replayed?.current).toBe(point.average);
    expect(replayed?.points).toEqual(served.predictions);
    expect(replayed?.decision).toEqual(served.decision);
    expect(replayed?.outcome.actual[0]).toBe(hours.find((p) => p.time === origin + HOUR_MS)?.average);
  });

  it('replays a span in slices exactly as in one go', () => {
    const slices = [H, H + 175 * HOUR_MS, H + 176 * HOUR_MS, H + 205 * HOUR_MS, H + 300 * HOUR_MS];
    const sliced = slices.slice(0, -1).flatMap((from, i) => replayForecasts(hours, from, slices[i + 1]));
    expect(sliced).toEqual(replayForecasts(hours, H));
  });

  it('replays any subset of the replayable hours as the whole replay does, so it can be done incrementally', () => {
    const origins = replayableOrigins(hours, H);
    expect(origins).toEqual(replayForecasts(hours, H).map((f) => f.originHour));
    const whole = new Map(replayForecasts(hours, H).map((f) => [f.originHour, f]));
    // A few, in any order, as the scheduled job may take them.
    const picked = [origins.at(-1), origins[3], origins[10]] as number[];
    for (const replayed of replayOrigins(hours, picked))
      expect(replayed).toEqual(whole.get(replayed.originHour));
    expect(replayOrigins(hours, picked).map((f) => f.originHour)).toEqual(picked);
    // An hour not stored is skipped.
    expect(replayOrigins(hours, [H + 200 * HOUR_MS])).toEqual([]);
  });

  it('replays nothing from less than a week of history', () => {
    expect(replayForecasts(hours.slice(0, 180), H)).toEqual([]);
    expect(replayForecasts([], H)).toEqual([]);
  });

  it('scores the replay as the back-test scores the same series', () => {
    // Twelve days with a daily rhythm, a weekly drift and deterministic noise.
    const series = Array.from({ length: 288 }, (_, i) => {
      const noise = Math.sin(i * 12.9898) * 43758.5453;
      const value =
        (10 + 4 * Math.sin((i / 24) * 2 * Math.PI) + i / 48) * (1 + 0.2 * (noise - Math.floor(noise) - 0.5));
      return { time: H + i * HOUR_MS, low: value, average: value, high: value };
    });
    const figures = scoreForecasts(replayForecasts(series, H));
    const report = runBacktest(
      series.map((p) => ({ time: p.time, value: p.average })),
      { warmupHours: 168 },
    ).whole;
    expect(report.origins).toBe(288 - 168 - 24);
    expect(figures.origins).toBe(report.origins);
    expect(figures.scoredFrom).toBe(report.firstOrigin);
    expect(figures.scoredTo).toBe(report.lastOrigin);
    expect(figures.mae?.model).toBeCloseTo(report.maeGwei.model, 3);
    expect(figures.mae?.persistence).toBeCloseTo(report.maeGwei.persistence, 3);
    expect(figures.mae?.sameHourYesterday).toBeCloseTo(report.maeGwei.sameHourYesterday, 3);
    expect(report.decision.waitDecisions).toBeGreaterThan(0);
    expect(figures.decision?.waits).toBe(report.decision.waitDecisions);
    expect(figures.decision?.realizedSavingPct).toBe(report.decision.meanSavingPct);
    expect(figures.decision?.oracleSavingPct).toBe(report.oracle.meanSavingPct);
    expect(figures.decision?.dearerWaitsPct).toBeCloseTo(report.decision.waitDearerShare * 100, 6);
    expect(figures.decision?.severeWaitsPct).toBeCloseTo(report.decision.waitSevereShare * 100, 6);
    expect(figures.calibration).toEqual(report.calibration);
  });
});
