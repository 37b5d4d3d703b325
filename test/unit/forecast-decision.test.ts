import { describe, expect, it } from 'vitest';
import { decideSendOrWait } from '../../lib/forecast/decision';
import { DEFAULT_FORECAST_PARAMS as params } from '../../lib/forecast/params';
import { normalCdf } from '../../lib/forecast/stats';

const NOW = Date.parse('2024-03-04T10:20:00Z');
const nextHour = Math.floor(NOW / 3_600_000) + 1;

describe('decideSendOrWait', () => {
  it('waits for a clearly cheaper hour whose forecast has been reliable', () => {
    const decision = decideSendOrWait(
      10,
      NOW,
      [
        { hour: nextHour, average: 9.5, sigma: 0.1 },
        { hour: nextHour + 3, average: 6, sigma: 0.1 },
      ],
      params,
    );
    expect(decision).toEqual({
      recommendation: 'wait',
      expectedSavingsPct: 40,
      expectedGas: 6,
      nextBestEtaMinutes: 220,
      nextBestAt: '2024-03-04T14:00:00.000Z',
      confidence: expect.any(Number),
    });
    expect(decision.confidence).toBeGreaterThan(0.99);
  });

  it('sends now when the same saving rests on a forecast that has often been wrong', () => {
    const decision = decideSendOrWait(10, NOW, [{ hour: nextHour + 3, average: 8.5, sigma: 0.6 }], params);
    expect(decision.recommendation).toBe('send_now');
    expect(decision.expectedSavingsPct).toBe(0);
    // The cheapest predicted hour is still named, as SPEC decision 1 asks.
    expect(decision.nextBestAt).toBe('2024-03-04T14:00:00.000Z');
    expect(decision.expectedGas).toBe(8.5);
    // Waiting would save 10 % or more with probability P(z < ln(9 / 8.5) / 0.6) ≈ 0.54, short of 0.6.
    expect(decision.confidence).toBeCloseTo(1 - normalCdf(Math.log(9 / 8.5) / 0.6), 3);
  });

  it('sends now and points at now when no predicted hour is cheaper', () => {
    const decision = decideSendOrWait(
      1,
      NOW,
      [
        { hour: nextHour, average: 1.2, sigma: 0.1 },
        { hour: nextHour + 1, average: 1.05, sigma: 0.1 },
      ],
      params,
    );
    expect(decision).toMatchObject({
      recommendation: 'send_now',
      expectedSavingsPct: 0,
      expectedGas: 1,
      nextBestEtaMinutes: 0,
      nextBestAt: new Date(NOW).toISOString(),
    });
  });
});
