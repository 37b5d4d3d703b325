import { HOUR_MS } from './hourly-series';
import type { ForecastParams } from './params';
import { normalCdf, roundSignificant } from './stats';
import type { Decision } from './types';

/** One predicted hour as the decision sees it. */
export interface DecisionCandidate {
  /** Hour index (hours since the epoch) of the predicted hour. */
  hour: number;
  /** Predicted average-tier gwei. */
  average: number;
  /** Log-space spread of past errors at this lead time. */
  sigma: number;
}

/** The cheapest predicted hour and the chance that waiting for it saves the required share. */
export interface WaitOdds {
  best: DecisionCandidate | undefined;
  /** Probability that the best hour's outcome is at least `waitMinSaving` below `current`. */
  probability: number;
}

/** Returns the index of the cheapest predicted hour, the earliest on a tie (-1 when there is none). */
export function cheapestIndex(candidates: readonly { average: number }[]): number {
  let best = -1;
  candidates.forEach((candidate, i) => {
    if (best < 0 || candidate.average < (candidates[best]?.average ?? Number.POSITIVE_INFINITY)) best = i;
  });
  return best;
}

/** Finds the cheapest predicted hour and the odds that waiting for it pays. */
export function assessWaiting(
  current: number,
  candidates: readonly DecisionCandidate[],
  params: ForecastParams,
): WaitOdds {
  const best = candidates[cheapestIndex(candidates)];
  if (!best || !(current > 0) || !(best.average > 0)) return { best, probability: 0 };
  const target = Math.log(current * (1 - params.waitMinSaving));
  const probability = best.sigma > 0 ? normalCdf((target - Math.log(best.average)) / best.sigma) : 0;
  return { best, probability };
}

/**
 * Decides send-or-wait (SPEC decision 1). Wait only when the cheapest predicted hour is, under the
 * spread of past errors at its lead time, at least `waitMinProbability` likely to come in at least
 * `waitMinSaving` below the current price; otherwise send now, since a forecast saving smaller than
 * its own error is a coin toss that costs the user time. `nextBestAt` always names the cheapest
 * predicted hour, or now when no predicted hour is cheaper. `confidence` is the probability that
 * the chosen action is the right side of the threshold.
 */
export function decideSendOrWait(
  current: number,
  now: number,
  candidates: readonly DecisionCandidate[],
  params: ForecastParams,
): Decision {
  const { best, probability } = assessWaiting(current, candidates, params);
  const cheaper = best !== undefined && best.average < current;
  const wait = cheaper && probability >= params.waitMinProbability;
  const at = cheaper ? best.hour * HOUR_MS : now;
  return {
    recommendation: wait ? 'wait' : 'send_now',
    expectedSavingsPct: wait ? Math.round((1 - best.average / current) * 1000) / 10 : 0,
    expectedGas: roundSignificant(cheaper ? best.average : current),
    nextBestEtaMinutes: Math.max(0, Math.round((at - now) / 60_000)),
    nextBestAt: new Date(at).toISOString(),
    confidence: Math.round((wait ? probability : 1 - probability) * 1000) / 1000,
  };
}
