import { HOUR_MS } from './hourly-series';
import type { ForecastParams } from './params';
import { roundSignificant } from './stats';
import type { Decision } from './types';
import { outlookFor, percentileRank, type RiskBasis, type WaitOutlook } from './wait-risk';

/** One predicted hour as the decision sees it. */
export interface DecisionCandidate {
  /** Hour index (hours since the epoch) of the predicted hour. */
  hour: number;
  /** Hours from the origin hour (1 = the next whole hour). */
  lead: number;
  /** Predicted average-tier gwei. */
  average: number;
}

/** What the decision knows beyond the forecast: the price of ETH, when a reading exists. */
export interface DecisionContext {
  ethUsd?: number | null;
}

/** Gas of a plain transfer, the unit in which an absolute saving is judged in USD. */
export const TRANSFER_GAS = 21_000;

/** Returns the index of the cheapest predicted hour, the earliest on a tie (-1 when there is none). */
export function cheapestIndex(candidates: readonly { average: number }[]): number {
  let best = -1;
  candidates.forEach((candidate, i) => {
    if (best < 0 || candidate.average < (candidates[best]?.average ?? Number.POSITIVE_INFINITY)) best = i;
  });
  return best;
}

/** One predicted hour judged as a place to wait for. */
interface Assessed {
  candidate: DecisionCandidate;
  outlook: WaitOutlook;
  /** Expected saving against sending now, jumps included (0.2 = 20 %). */
  saving: number;
  /** P(the price there ends above now) and P(above twice now). */
  dearer: number;
  severe: number;
}

/** Judges every predicted hour under the risk model. */
function assess(current: number, candidates: readonly DecisionCandidate[], risk: RiskBasis): Assessed[] {
  return candidates.map((candidate) => {
    const outlook = outlookFor(candidate.average / current, candidate.lead, risk);
    return {
      candidate,
      outlook,
      saving: 1 - outlook.expectedRatio,
      dearer: 1 - outlook.probabilityBelow(1),
      severe: 1 - outlook.probabilityBelow(2),
    };
  });
}

/**
 * Returns the least saving, as a share of now, that makes a wait worth it to a user: `waitMinSaving`,
 * and enough for `waitMinSavingGwei` and, when an ETH price is known, `waitMinSavingUsd` on a
 * 21,000-gas transfer (at sub-gwei fees that share grows large: a cent is not worth hours).
 */
export function requiredSaving(current: number, params: ForecastParams, context: DecisionContext): number {
  const usd = context.ethUsd;
  const transferUsd = usd && usd > 0 ? current * 1e-9 * TRANSFER_GAS * usd : Number.POSITIVE_INFINITY;
  return Math.max(
    params.waitMinSaving,
    params.waitMinSavingGwei / current,
    params.waitMinSavingUsd / transferUsd,
  );
}

/** True when waiting for this hour saves enough, with little enough chance of ending dearer or far dearer. */
function worthWaiting(hour: Assessed, required: number, params: ForecastParams): boolean {
  return (
    hour.saving >= required &&
    hour.dearer <= params.waitMaxDearerProbability &&
    hour.severe <= params.waitMaxSevereProbability
  );
}

/**
 * Decides send-or-wait (SPEC decision 1) under a risk model learned from the series' own past
 * (`wait-risk.ts`): at each predicted hour the price lands at the forecast times one of the
 * model's replayed errors at that lead, or, with a probability that grows with the wait, after a
 * sudden jump of the size the series has shown (a prior one where it has shown none). Wait only
 * for an hour whose expected saving under that model, jumps included, is at least `waitMinSaving`
 * of the current price, `waitMinSavingGwei`, and (with an ETH price) `waitMinSavingUsd` on a
 * 21,000-gas transfer; whose chance of ending dearer than now and above twice now stay within
 * bounds; and never when the current price already sits in the bottom `sendNowPercentile` of the
 * last 7 days. Among such hours the one with the best saving less `waitCostPerHour` per hour waited
 * wins, so a farther hour must save clearly more than a nearer one.
 *
 * `expectedSavingsPct` is that expected saving (0 for `send_now`), `expectedGas` the expected
 * price at `nextBestAt`, and `confidence` the model's probability that the chosen action is right:
 * for `wait`, that the price at `nextBestAt` ends below now; for `send_now`, that waiting for the
 * likeliest hour to save the share a wait must save (`requiredSaving`) would not have saved it. When the
 * 7-day-low rule overrides a forecast of a much cheaper hour, that confidence is low, and says so. `nextBestAt` is the hour waited for, or
 * for `send_now` the cheapest predicted hour (now when none is cheaper).
 */
export function decideSendOrWait(
  current: number,
  now: number,
  candidates: readonly DecisionCandidate[],
  risk: RiskBasis,
  params: ForecastParams,
  context: DecisionContext = {},
): Decision {
  const usable = current > 0 && candidates.length > 0;
  const assessed = usable ? assess(current, candidates, risk) : [];
  const nearWeeklyLow = percentileRank(risk.lastWeek, Math.log(current)) <= params.sendNowPercentile;
  const required = usable ? requiredSaving(current, params, context) : Number.POSITIVE_INFINITY;
  let chosen: Assessed | undefined;
  let bestUtility = Number.NEGATIVE_INFINITY;
  // Cheaper as the hour is served (4 significant digits), as nextBestTime judges it: a record of
  // forecasts that ran high can make an hour forecast above now look cheaper in expectation, and a
  // wait for an hour the client sees predicted at or above now's price would contradict the answer.
  const servedCheaper = (hour: Assessed) => roundSignificant(hour.candidate.average) < current;
  for (const hour of nearWeeklyLow ? [] : assessed) {
    if (!servedCheaper(hour) || !worthWaiting(hour, required, params)) continue;
    const utility = hour.saving - params.waitCostPerHour * hour.candidate.lead;
    if (utility > bestUtility) {
      bestUtility = utility;
      chosen = hour;
    }
  }
  const at = (hour: number) => hour * HOUR_MS;
  const describe = (hour: Assessed | undefined) => {
    const time = hour ? at(hour.candidate.hour) : now;
    return {
      expectedGas: roundSignificant(hour ? current * hour.outlook.expectedRatio : current),
      nextBestEtaMinutes: Math.max(0, Math.round((time - now) / 60_000)),
      nextBestAt: new Date(time).toISOString(),
    };
  };
  const round3 = (p: number) => Math.round(Math.min(1, Math.max(0, p)) * 1000) / 1000;
  if (chosen) {
    return {
      recommendation: 'wait',
      expectedSavingsPct: Math.round(chosen.saving * 1000) / 10,
      ...describe(chosen),
      confidence: round3(1 - chosen.dearer),
    };
  }
  const cheapest = assessed[cheapestIndex(candidates)];
  // Sending now is right unless waiting for some hour would have saved what a wait must: at least as
  // likely as for the likeliest hour. Every hour counts, those served at or above now too (a wait never
  // chooses them, but the price there may still end that far below now). Until 2026-11-28 only hours
  // served below now counted, so with none the confidence was 1, and it jumped to about 0.6 when one
  // hour's forecast rounded just below now.
  const saveRatio = 1 - Math.min(1, required);
  const missed = Math.max(0, ...assessed.map((hour) => hour.outlook.probabilityBelow(saveRatio)));
  return {
    recommendation: 'send_now',
    expectedSavingsPct: 0,
    ...describe(cheapest && servedCheaper(cheapest) ? cheapest : undefined),
    confidence: round3(1 - missed),
  };
}
