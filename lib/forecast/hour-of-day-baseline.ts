import { median } from './stats';

/** The plain baseline's wait: the lead (hours) it waits, or 0 to send now. */
export interface BaselineChoice {
  lead: number;
}

/**
 * The plain hour-of-day baseline the back-test sets beside the model: each UTC hour of day is
 * predicted at its median over the last `days` days, and the decision waits for the cheapest
 * predicted hour of the next `horizon` when it is at least `threshold` (10 %) below the current
 * price, else sends now. `prices[i]` is the hourly price (NaN when missing); hour `i` has hour of
 * day `(startHourOfDay + i) % 24`; only hours before `origin` are read.
 */
export function decideByHourOfDay(
  prices: ArrayLike<number>,
  origin: number,
  startHourOfDay: number,
  horizon = 24,
  days = 7,
  threshold = 0.1,
): BaselineChoice {
  const current = prices[origin] ?? Number.NaN;
  const byHour: number[][] = Array.from({ length: 24 }, () => []);
  for (let i = Math.max(0, origin - days * 24); i < origin; i++) {
    const v = prices[i] ?? Number.NaN;
    if (Number.isFinite(v)) byHour[(startHourOfDay + i) % 24]?.push(v);
  }
  let lead = 0;
  let cheapest = Number.POSITIVE_INFINITY;
  for (let k = 1; k <= horizon; k++) {
    const predicted = median(byHour[(startHourOfDay + origin + k) % 24] ?? []);
    if (predicted < cheapest) {
      cheapest = predicted;
      lead = k;
    }
  }
  return { lead: cheapest <= current * (1 - threshold) ? lead : 0 };
}
