import { describe, expect, it } from 'vitest';
import { forecastGas, prepareForecast } from '../../lib/forecast/forecast-gas';
import { DEFAULT_FORECAST_PARAMS } from '../../lib/forecast/params';
import type { ForecastHorizon, HourlyGasPoint } from '../../lib/forecast/types';

const HOUR = 3_600_000;
const MONDAY = Date.parse('2024-01-01T00:00:00Z');

/** Hourly history of `days` days ending just before `now`, average from `gwei(hourIndexFromStart)`. */
function history(days: number, gwei: (hour: number) => number, start = MONDAY): HourlyGasPoint[] {
  return Array.from({ length: days * 24 }, (_, h) => {
    const average = gwei(h);
    return { time: start + h * HOUR, low: average * 0.8, average, high: average * 1.3 };
  });
}

/** A daily cycle peaking at 16:00 UTC and bottoming at 04:00, factor e between them, with a little jitter. */
const daily = (hour: number) =>
  10 * Math.exp(0.5 * Math.cos((2 * Math.PI * ((hour % 24) - 16)) / 24)) * (1 + 0.02 * Math.sin(hour * 7.3));

const reading = (average: number) => ({ low: average * 0.8, average, high: average * 1.3 });

describe('forecastGas', () => {
  it('recovers a known daily shape from four weeks of history', () => {
    const now = MONDAY + 28 * 24 * HOUR + 30 * 60_000;
    const result = forecastGas({
      history: history(28, daily),
      current: reading(daily(0)),
      now,
      horizon: '24h',
    });
    const averages = result.predictions.map((p) => p.average);
    const hourOf = (i: number) => new Date(result.predictions[i]?.timestamp ?? '').getUTCHours();
    const peak = hourOf(averages.indexOf(Math.max(...averages)));
    const trough = hourOf(averages.indexOf(Math.min(...averages)));
    expect(Math.abs(peak - 16)).toBeLessThanOrEqual(1);
    expect(Math.abs(trough - 4)).toBeLessThanOrEqual(1);
    expect(Math.max(...averages) / Math.min(...averages)).toBeGreaterThan(Math.E * 0.85);
    expect(Math.max(...averages) / Math.min(...averages)).toBeLessThan(Math.E * 1.15);
    expect(result.usingFallbackData).toBe(false);
  });

  it('gives the same forecast from a basis prepared earlier in the hour, for any later reading', () => {
    const hist = history(28, daily);
    const hourStart = MONDAY + 28 * 24 * HOUR;
    const basis = prepareForecast(hist, hourStart + 60_000, '24h');
    for (const [minute, average] of [
      [5, 9],
      [40, 14],
      [59, 6],
    ] as const) {
      const input = {
        history: hist,
        current: reading(average),
        now: hourStart + minute * 60_000,
        horizon: '24h',
      } as const;
      expect(forecastGas(input, DEFAULT_FORECAST_PARAMS, basis)).toEqual(forecastGas(input));
    }
    const nextHour = { history: hist, current: reading(9), now: hourStart + HOUR, horizon: '24h' } as const;
    expect(() => forecastGas(nextHour, DEFAULT_FORECAST_PARAMS, basis)).toThrow(/another hour or horizon/);
    expect(() =>
      forecastGas({ ...nextHour, now: hourStart, horizon: '6h' }, DEFAULT_FORECAST_PARAMS, basis),
    ).toThrow(/another hour or horizon/);
  });

  it('predicts flat from flat history and says send_now', () => {
    const now = MONDAY + 28 * 24 * HOUR + 5 * 60_000;
    const result = forecastGas({
      history: history(28, () => 0.5),
      current: reading(0.5),
      now,
      horizon: '7d',
    });
    for (const p of result.predictions) {
      expect(p.average).toBeCloseTo(0.5, 3);
      expect(p.low).toBeLessThanOrEqual(p.average);
      expect(p.high).toBeGreaterThanOrEqual(p.average);
    }
    expect(result.decision.recommendation).toBe('send_now');
    expect(result.decision.expectedSavingsPct).toBe(0);
    expect(result.nextBestTime).toBeNull();
  });

  it("does not let a one-hour spike move next week's forecast", () => {
    const now = MONDAY + 28 * 24 * HOUR;
    const spikeHour = 28 * 24 - 168 + 10; // the same hour of the week as a point being forecast
    const clean = history(28, daily);
    const spiked = clean.map((p, h) =>
      h === spikeHour ? { ...p, average: p.average * 20, high: p.high * 20 } : p,
    );
    const input = { current: reading(daily(0)), now, horizon: '7d' as const };
    const a = forecastGas({ ...input, history: clean }).predictions;
    const b = forecastGas({ ...input, history: spiked }).predictions;
    for (let i = 0; i < a.length; i++) {
      expect(Math.abs((b[i]?.average ?? 0) / (a[i]?.average ?? 1) - 1)).toBeLessThan(0.01);
    }
  });

  it('stands in the built-in profile with less than 7 days of history', () => {
    const now = MONDAY + 3 * 24 * HOUR;
    const short = forecastGas({ history: history(3, () => 2), current: reading(2), now, horizon: '24h' });
    expect(short.usingFallbackData).toBe(true);
    const averages = short.predictions.map((p) => p.average);
    expect(Math.max(...averages) / Math.min(...averages)).toBeGreaterThan(1.2);
    const empty = forecastGas({ history: [], current: reading(2), now, horizon: '24h' });
    expect(empty.usingFallbackData).toBe(true);
    expect(empty.predictions).toHaveLength(24);
  });

  it('gives 6, 12, 24 and 168 hourly points starting at the next whole hour', () => {
    const now = Date.parse('2024-01-29T10:17:42Z');
    const counts: Record<ForecastHorizon, number> = { '6h': 6, '12h': 12, '24h': 24, '7d': 168 };
    for (const [horizon, count] of Object.entries(counts) as [ForecastHorizon, number][]) {
      const { predictions } = forecastGas({
        history: history(28, daily),
        current: reading(12),
        now,
        horizon,
      });
      expect(predictions).toHaveLength(count);
      predictions.forEach((p, i) => {
        expect(p.timestamp).toBe(new Date(Date.parse('2024-01-29T11:00:00Z') + i * HOUR).toISOString());
        expect(p.confidence).toBeGreaterThan(0);
        expect(p.confidence).toBeLessThanOrEqual(1);
      });
    }
  });

  it('is less confident with less history and with noisier history', () => {
    const now = MONDAY + 28 * 24 * HOUR;
    const learned = forecastGas({
      history: history(28, daily),
      current: reading(daily(0)),
      now,
      horizon: '24h',
    });
    const fallback = forecastGas({
      history: history(3, daily, now - 3 * 24 * HOUR),
      current: reading(daily(0)),
      now,
      horizon: '24h',
    });
    const noisy = (h: number) => daily(h) * Math.exp(0.6 * Math.sin(h * 12.9898) * Math.sin(h * 4.1414));
    const rough = forecastGas({
      history: history(28, noisy),
      current: reading(daily(0)),
      now,
      horizon: '24h',
    });
    const mean = (f: typeof learned) =>
      f.predictions.reduce((s, p) => s + p.confidence, 0) / f.predictions.length;
    expect(mean(fallback)).toBeLessThan(mean(learned));
    expect(mean(rough)).toBeLessThan(mean(learned));
  });

  it('calls an hour cheaper than now exactly when its served (rounded) average is below the served current one', () => {
    // A flat week-old history at 8.721 gwei and readings swept across it in steps finer than the
    // predictions' 4 significant digits: nextBestTime and the decision's hour follow the served numbers.
    const hist = history(28, (h) => 8.721 * (1 + 0.0004 * Math.sin(h * 1.7)));
    const now = MONDAY + 28 * 24 * HOUR + 20 * 60_000;
    const basis = prepareForecast(hist, now, '24h');
    let cheaperSeen = 0;
    let noneSeen = 0;
    for (let i = 0; i <= 600; i += 1) {
      const current = 8.7095 + i * 0.0000071;
      const result = forecastGas(
        { history: hist, current: reading(current), now, horizon: '24h' },
        undefined,
        basis,
      );
      const cheapest = Math.min(...result.predictions.map((p) => p.average));
      const cheaper = cheapest < current;
      expect(result.nextBestTime !== null, `current ${current}`).toBe(cheaper);
      if (result.decision.recommendation === 'send_now') {
        expect(result.decision.nextBestAt === new Date(now).toISOString(), `current ${current}`).toBe(
          !cheaper,
        );
      }
      if (cheaper) cheaperSeen += 1;
      else noneSeen += 1;
    }
    expect(cheaperSeen).toBeGreaterThan(0);
    expect(noneSeen).toBeGreaterThan(0);
  });

  it('says wait when gas sits far above its usual level, with consistent decision fields', () => {
    const now = MONDAY + 28 * 24 * HOUR + 10 * 60_000;
    const result = forecastGas({
      history: history(28, daily),
      current: reading(5 * daily(0)),
      now,
      horizon: '24h',
    });
    const { decision, nextBestTime, predictions } = result;
    expect(decision.recommendation).toBe('wait');
    const cheapest = predictions.reduce((a, b) => (b.average < a.average ? b : a));
    expect(nextBestTime?.timestamp).toBe(cheapest.timestamp);
    const waitedFor = predictions.find((p) => p.timestamp === decision.nextBestAt);
    expect(waitedFor).toBeDefined();
    // The hour waited for is the cheapest or a nearer one within the cost of the extra wait.
    expect(Date.parse(decision.nextBestAt)).toBeLessThanOrEqual(Date.parse(cheapest.timestamp));
    expect(decision.nextBestEtaMinutes).toBe(Math.round((Date.parse(decision.nextBestAt) - now) / 60_000));
    expect(decision.expectedSavingsPct).toBeGreaterThan(50);
    expect(decision.expectedSavingsPct).toBeCloseTo(100 * (1 - decision.expectedGas / (5 * daily(0))), 0);
    expect(decision.confidence).toBeGreaterThanOrEqual(1 - DEFAULT_FORECAST_PARAMS.waitMaxDearerProbability);
  });
});
