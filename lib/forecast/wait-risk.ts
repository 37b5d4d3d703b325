import { valueAt } from './hourly-series';
import { type LogModel, seasonalAt } from './log-model';
import type { ForecastParams } from './params';
import { computePercentileRank } from './percentile-rank';
import { lowerBound, median, normalCdf } from './stats';

/**
 * What waiting `k` hours risks, learned from the series' own past: the model's replayed log errors
 * at that lead (sorted, so any tail probability is a binary search), and the sudden-jump risk that a
 * short or calm history cannot show by itself.
 */
export interface LeadRisk {
  /** Replayed log errors (actual - forecast) at this lead, ascending. */
  errors: Float64Array;
  /** Mean of exp(error) over them (how far above the point forecast outcomes land on average). */
  meanRatio: number;
}

/** What the history showed of sudden jumps: hours watched, onsets, their summed sizes and hours. */
export interface JumpRecord {
  hours: number;
  onsets: number;
  /** Onsets and hours watched before the error replay's window (those inside it are in the replayed errors). */
  onsetsBeforeWindow: number;
  hoursBeforeWindow: number;
  multiplierSum: number;
  jumpHours: number;
}

/** Sudden level jumps: how often one starts (per hour), how big and how long one is on average. */
export interface JumpRisk {
  /** Probability per hour that a jump of at least `jumpFactor` starts. */
  hazard: number;
  /** Mean multiplier of a jump (prior size blended with the series' own jumps). */
  meanMultiplier: number;
  /** Mean hours a jump lasts (prior duration blended the same way). */
  meanHours: number;
  /** What the history showed, before the prior was blended in. */
  record: JumpRecord;
}

/** The risk side of a forecast basis: one LeadRisk per lead, the jump risk and last week's sorted values. */
export interface RiskBasis {
  leads: LeadRisk[];
  jump: JumpRisk;
  /** Log values of the last 7 days before the origin, ascending (for the weekly percentile). */
  lastWeek: Float64Array;
  /** The prior log spread and its weight in errors (thin history borrows from it). */
  priorSigma: number;
  priorCount: number;
}

/** Builds a LeadRisk from one lead's replayed errors. */
export function toLeadRisk(errors: readonly number[]): LeadRisk {
  const sorted = Float64Array.from(errors).sort();
  let sum = 0;
  for (const e of sorted) sum += Math.exp(e);
  return { errors: sorted, meanRatio: sorted.length > 0 ? sum / sorted.length : Number.NaN };
}

/**
 * Returns P(error < x) at a lead: the replayed errors' share below x, blended with a normal of the
 * prior spread worth `priorCount` errors, so a thin or empty record stays humble.
 */
export function errorBelow(lead: LeadRisk, x: number, basis: Pick<RiskBasis, 'priorSigma' | 'priorCount'>) {
  const n = lead.errors.length;
  const prior = normalCdf(x / basis.priorSigma);
  return (lowerBound(lead.errors, x) + basis.priorCount * prior) / (n + basis.priorCount);
}

/** Returns E[exp(error)] at a lead, blended with the prior's lognormal mean the same way. */
export function meanErrorRatio(lead: LeadRisk, basis: Pick<RiskBasis, 'priorSigma' | 'priorCount'>) {
  const n = lead.errors.length;
  const prior = Math.exp(basis.priorSigma ** 2 / 2);
  const measured = n > 0 ? lead.meanRatio : prior;
  return (n * measured + basis.priorCount * prior) / (n + basis.priorCount);
}

/**
 * Returns the probability that the outcome `lead` hours ahead lands within a factor `tolerance` of
 * the point forecast: the share of replayed errors that did (blended with the prior), so the stated
 * confidence is calibrated on the model's own record rather than on a normal band.
 */
export function shareWithin(lead: number, tolerance: number, risk: RiskBasis): number {
  const leadRisk = risk.leads[lead - 1] ?? toLeadRisk([]);
  const bound = Math.log(tolerance);
  return errorBelow(leadRisk, bound, risk) - errorBelow(leadRisk, -bound, risk);
}

/**
 * Reads the sudden jumps in the history before `originHour`: an onset is an hour whose
 * deseasonalised value first rises more than `jumpFactor` above the median of the 24 hours before
 * it; the run of such hours is the jump.
 */
export function recordJumps(model: LogModel, originHour: number, jumpFactor: number): JumpRecord {
  const threshold = Math.log(jumpFactor);
  const windowStart = originHour - model.params.errorWindowHours;
  const record: JumpRecord = {
    hours: 0,
    onsets: 0,
    onsetsBeforeWindow: 0,
    hoursBeforeWindow: 0,
    multiplierSum: 0,
    jumpHours: 0,
  };
  let inJump = false;
  const window: number[] = [];
  for (let hour = model.series.start; hour < originHour; hour++) {
    const raw = valueAt(model.series, hour);
    const x = Number.isNaN(raw) ? Number.NaN : raw - seasonalAt(model, hour);
    if (!Number.isNaN(x) && window.length >= 12) {
      record.hours++;
      if (hour < windowStart) record.hoursBeforeWindow++;
      const excess = x - median(window);
      const jumping = excess > threshold;
      if (jumping && !inJump) {
        record.onsets++;
        if (hour < windowStart) record.onsetsBeforeWindow++;
        record.multiplierSum += Math.exp(excess);
      }
      if (jumping) record.jumpHours++;
      inJump = jumping;
    }
    if (!Number.isNaN(x)) window.push(x);
    if (window.length > 24) window.shift();
  }
  return record;
}

/**
 * Turns a jump record into the risk the decision adds on top of the replayed errors. Jumps inside
 * the error replay's window already show in those errors, so the hazard counts only the onsets
 * before it, blended with a prior of `jumpPriorEvents` per `jumpPriorHours`; sizes and durations
 * blend every jump seen with the prior ones counted as one jump. A calm fortnight thus still carries
 * the memory that fees can jump 10x within an hour, and that memory fades as history grows.
 */
export function jumpRiskOf(record: JumpRecord, params: ForecastParams): JumpRisk {
  const blended = record.onsets + 1;
  return {
    hazard:
      (record.onsetsBeforeWindow + params.jumpPriorEvents) /
      (record.hoursBeforeWindow + params.jumpPriorHours),
    meanMultiplier: (record.multiplierSum + params.jumpPriorMultiplier) / blended,
    meanHours: (record.jumpHours + params.jumpPriorDurationHours) / blended,
    record,
  };
}

/** Returns the log values of the 7 days before `originHour`, ascending. */
export function lastWeekValues(model: LogModel, originHour: number): Float64Array {
  const values: number[] = [];
  for (let hour = originHour - 168; hour < originHour; hour++) {
    const v = valueAt(model.series, hour);
    if (!Number.isNaN(v)) values.push(v);
  }
  return Float64Array.from(values).sort();
}

/**
 * Returns where `value` ranks among ascending `sorted` values, 0 to 100 (the mid-rank percentile of
 * `percentile-rank.ts`, counted by binary search); NaN when there are none.
 */
export function percentileRank(sorted: ArrayLike<number>, value: number): number {
  if (Number.isNaN(value)) return Number.NaN;
  const below = lowerBound(sorted, value);
  let equal = 0;
  while (below + equal < sorted.length && sorted[below + equal] === value) equal++;
  return computePercentileRank({ below, equal, total: sorted.length }) ?? Number.NaN;
}

/** What the decision needs to know of waiting for one predicted hour. */
export interface WaitOutlook {
  /** Expected price at that hour over the current one (jumps included): 1 - expected saving. */
  expectedRatio: number;
  /** P(price there < ratio x current), for any x, under the same model. */
  probabilityBelow: (ratio: number) => number;
}

/**
 * Returns the probability that a jump is under way `lead` hours from now when none is now: one
 * started within the last `meanHours` before that hour, so the risk grows with the wait until a
 * wait outlasts a typical jump.
 */
export function jumpProbability(jump: JumpRisk, lead: number): number {
  return 1 - (1 - jump.hazard) ** Math.min(lead, Math.max(1, jump.meanHours));
}

/**
 * Combines a point forecast with the risk at its lead: the price lands at forecast x exp(error)
 * with the replayed errors' distribution, unless a jump is under way then (`jumpProbability`),
 * which multiplies it by the jump size.
 */
export function outlookFor(forecastRatio: number, lead: number, risk: RiskBasis): WaitOutlook {
  const leadRisk = risk.leads[lead - 1] ?? toLeadRisk([]);
  const jumped = jumpProbability(risk.jump, lead);
  const meanError = meanErrorRatio(leadRisk, risk);
  const expectedRatio = forecastRatio * meanError * (1 - jumped + jumped * risk.jump.meanMultiplier);
  const probabilityBelow = (ratio: number) => {
    if (!(ratio > 0)) return 0;
    const calm = errorBelow(leadRisk, Math.log(ratio / forecastRatio), risk);
    const afterJump = errorBelow(
      leadRisk,
      Math.log(ratio / (forecastRatio * risk.jump.meanMultiplier)),
      risk,
    );
    return (1 - jumped) * calm + jumped * afterJump;
  };
  return { expectedRatio, probabilityBelow };
}
