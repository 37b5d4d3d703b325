import { describe, expect, it } from 'vitest';
import { scoreForecasts } from '../../lib/forecast/accuracy';
import type { Decision, Prediction } from '../../lib/forecast/types';
import { describeAccuracy } from '../../lib/mcp/tools/forecast-accuracy';
import { describeDecision, describeForecast } from '../../lib/mcp/tools/forecast-text';
import type { GasPredictions } from '../../lib/services/gas-predictions';

const point = (hour: number, average: number): Prediction => ({
  timestamp: `2026-11-28T${String(hour).padStart(2, '0')}:00:00.000Z`,
  low: average * 0.9,
  average,
  high: average * 1.1,
  isLowFeeWindow: false,
  confidence: 0.6,
});

/** A forecast of three hours from 51.396 gwei now: 04:00 at 48, 07:00 the cheapest at 45.12. */
function predictions(decision: Decision): GasPredictions {
  const points = [point(4, 48), point(5, 50), point(6, 49), point(7, 45.12)];
  return {
    predictions: points,
    usingFallbackData: false,
    nextBestTime: { timestamp: points[3]!.timestamp, gasPrices: points[3]!, confidence: 0.6 },
    decision,
    current: { average: 51.396 } as GasPredictions['current'],
    historical: [],
    timeframe: '24h',
    dataPoints: 1000,
    lastUpdated: '2026-11-28T03:10:00.000Z',
  };
}

describe('describeDecision (best_time_to_transact text)', () => {
  it("gives send_now the cheapest predicted hour at its predicted price, not the decision's risk-weighted expectation", () => {
    const text = describeDecision(
      predictions({
        recommendation: 'send_now',
        expectedSavingsPct: 0,
        expectedGas: 52.41,
        nextBestEtaMinutes: 230,
        nextBestAt: '2026-11-28T07:00:00.000Z',
        confidence: 0.7,
      }),
      '24h',
    );
    expect(text).toContain('Send now (average 51.396 gwei now)');
    expect(text).toContain('2026-11-28T07:00:00.000Z at 45.12 gwei');
    expect(text).toContain('risk of a fee jump');
    expect(text).not.toContain('52.41');
  });

  it('names the hour waited for (a nearer one than the cheapest), its expected price and its forecast apart', () => {
    const text = describeDecision(
      predictions({
        recommendation: 'wait',
        expectedSavingsPct: 5.2,
        expectedGas: 48.7,
        nextBestEtaMinutes: 50,
        nextBestAt: '2026-11-28T04:00:00.000Z',
        confidence: 0.66,
      }),
      '24h',
    );
    expect(text).toContain('Wait until 2026-11-28T04:00:00.000Z (in 50 min)');
    expect(text).toContain('expected average 48.7 gwei there (forecast 48 gwei)');
    // The cheapest hour is named apart, with why it was not chosen (the tool used to promise it).
    expect(text).toContain(
      'The cheapest predicted hour is 2026-11-28T07:00:00.000Z at 45.12 gwei; the decision prefers 2026-11-28T04:00',
    );
  });

  it('does not name a cheapest hour apart when the hour waited for is the cheapest', () => {
    const text = describeDecision(
      predictions({
        recommendation: 'wait',
        expectedSavingsPct: 11,
        expectedGas: 45.7,
        nextBestEtaMinutes: 230,
        nextBestAt: '2026-11-28T07:00:00.000Z',
        confidence: 0.7,
      }),
      '24h',
    );
    expect(text).not.toContain('cheapest');
  });
});

describe('describeForecast (get_gas_forecast text)', () => {
  it('names the cheapest hour that nextBestTime names, also when served averages tie', () => {
    const p = predictions({
      recommendation: 'send_now',
      expectedSavingsPct: 0,
      expectedGas: 51.396,
      nextBestEtaMinutes: 0,
      nextBestAt: '2026-11-28T03:10:00.000Z',
      confidence: 0.7,
    });
    // 05:00 and 07:00 are served at 45.12 each; the unrounded forecast put 07:00 lower.
    p.predictions[1] = point(5, 45.12);
    expect(describeForecast(p, '24h')).toContain('cheapest hour 2026-11-28T07:00:00.000Z');
  });
});

describe('describeAccuracy (get_forecast_accuracy text)', () => {
  it('says a decision that lost money cost more, not that it "saved" a negative share', () => {
    const text = describeAccuracy({
      window: '7d',
      source: 'live',
      updatedAt: 0,
      ...scoreForecasts([]),
      origins: 30,
      scoredFrom: '2026-11-20T00:00:00.000Z',
      scoredTo: '2026-11-26T00:00:00.000Z',
      mae: null,
      decision: {
        waits: 10,
        realizedSavingPct: -2.5,
        oracleSavingPct: 20,
        dearerWaitsPct: 40,
        severeWaitsPct: 0,
      },
    });
    expect(text).toContain('following the decision cost 2.5 % more than sending at once on average');
    expect(text).not.toContain('saved -');
  });
});
