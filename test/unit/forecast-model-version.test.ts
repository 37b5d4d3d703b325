import { describe, expect, it } from 'vitest';
import { FORECASTER_VERSION, forecastModelVersion } from '../../lib/forecast/model-version';
import { DEFAULT_FORECAST_PARAMS } from '../../lib/forecast/params';

describe('forecast model version', () => {
  it('is the forecaster version and a hash of the parameters, the same whatever their order', () => {
    const version = forecastModelVersion();
    expect(version).toMatch(new RegExp(`^${FORECASTER_VERSION}-[0-9a-f]{8}$`));
    expect(forecastModelVersion({ ...DEFAULT_FORECAST_PARAMS })).toBe(version);
    const reversed = Object.fromEntries(Object.entries(DEFAULT_FORECAST_PARAMS).reverse());
    expect(forecastModelVersion(reversed as typeof DEFAULT_FORECAST_PARAMS)).toBe(version);
  });

  it('changes with any parameter, the decision constants and an infinite one included', () => {
    const versions = new Set([
      forecastModelVersion(),
      forecastModelVersion({ ...DEFAULT_FORECAST_PARAMS, priorSigma: 0.36 }),
      forecastModelVersion({ ...DEFAULT_FORECAST_PARAMS, waitMinSaving: 0.11 }),
      forecastModelVersion({ ...DEFAULT_FORECAST_PARAMS, waitMaxDearerProbability: 0.4 }),
      forecastModelVersion({ ...DEFAULT_FORECAST_PARAMS, levelHalfLifeHours: 48 }),
      forecastModelVersion({ ...DEFAULT_FORECAST_PARAMS, levelHalfLifeHours: Number.NaN }),
    ]);
    expect(versions.size).toBe(6);
  });
});
