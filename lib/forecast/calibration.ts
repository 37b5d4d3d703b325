/** One confidence band: what the forecasts in it said and how often they were right. */
export interface CalibrationBand {
  /** Band bounds on the stated confidence, [from, to). The last band includes 1. */
  from: number;
  to: number;
  /** Forecast points whose stated confidence fell in the band. */
  count: number;
  /** Their mean stated confidence, and the share whose outcome fell within the stated tolerance. */
  statedMean: number | null;
  observed: number | null;
}

/** Band edges of stated confidence. */
export const CALIBRATION_EDGES = [0, 0.2, 0.4, 0.6, 0.8, 1] as const;

/**
 * Groups forecast points by stated confidence and compares, in each band, the mean stated
 * confidence with the share of outcomes that landed within the stated tolerance: a calibrated
 * forecaster shows the two close in every band.
 */
export function summariseCalibration(
  points: Iterable<{ confidence: number; hit: boolean }>,
): CalibrationBand[] {
  const bands = CALIBRATION_EDGES.slice(0, -1).map((from, i) => ({
    from,
    to: CALIBRATION_EDGES[i + 1] ?? 1,
    count: 0,
    stated: 0,
    hits: 0,
  }));
  for (const point of points) {
    // A confidence that is not a number in 0..1 says nothing about calibration.
    if (!(point.confidence >= 0 && point.confidence <= 1)) continue;
    const band = bands.find((b) => point.confidence < b.to || b.to === 1);
    if (!band) continue;
    band.count++;
    band.stated += point.confidence;
    if (point.hit) band.hits++;
  }
  return bands.map(({ from, to, count, stated, hits }) => ({
    from,
    to,
    count,
    statedMean: count > 0 ? Math.round((stated / count) * 1000) / 1000 : null,
    observed: count > 0 ? Math.round((hits / count) * 1000) / 1000 : null,
  }));
}

/** True when the outcome landed within a factor `tolerance` of the forecast (both positive). */
export function withinTolerance(forecast: number, actual: number, tolerance: number): boolean {
  return actual <= forecast * tolerance && actual >= forecast / tolerance;
}
