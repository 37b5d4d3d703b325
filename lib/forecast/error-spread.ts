import { valueAt } from './hourly-series';
import { forecastLogPath, type LogModel, recentShapes } from './log-model';

/**
 * Replays the model from past origins in the history (each forecast sees only the hours before its
 * origin; the weekly profile is today's, a small optimism accepted so one request stays cheap) and
 * returns its log errors (actual - forecast) per lead time: `errors[k - 1]` holds those `k` hours
 * ahead. The decision reads its risk, and a point its confidence, from this record.
 */
export function replayErrors(model: LogModel, originHour: number, leads: number): number[][] {
  const errors: number[][] = Array.from({ length: leads }, () => []);
  const first = Math.max(model.series.start, originHour - model.params.errorWindowHours);
  const shapes = recentShapes(model, first);
  for (let past = first; past < originHour - 1; past++) {
    const recent = shapes.next().value;
    const anchor = valueAt(model.series, past);
    if (Number.isNaN(anchor)) continue;
    const reach = Math.min(leads, originHour - 1 - past);
    const path = forecastLogPath(model, past, anchor, reach, recent);
    for (let k = 1; k <= reach; k++) {
      const actual = valueAt(model.series, past + k);
      if (!Number.isNaN(actual)) errors[k - 1]?.push(actual - (path[k - 1] ?? 0));
    }
  }
  return errors;
}
