/** What replaying the decision on one walked series gives. */
export interface DecisionReplay {
  /** Mean saving per origin of following the decision, percent of the send-now price. */
  savingPct: number;
  /** The same for a perfect-foresight oracle and for the hour-of-day baseline. */
  oraclePct: number;
  baselineSavingPct: number;
  /** Wait decisions, and those that ended dearer than now and above twice now. */
  waits: number;
  dearer: number;
  severe: number;
}

/**
 * Scores replays of one series or of its spiked copies: each share's mean over the copies, as the
 * back-test's `--seeds` sweep reports it (a copy without waits counts as none dearer or severe),
 * whether the decision's mean share of the oracle's saving beats the baseline's, and the severe
 * share pooled over all the copies' waits (`pooledSevere`; it differs from the mean when the copies
 * differ in waits).
 */
export function summariseReplays(replays: readonly DecisionReplay[]) {
  if (replays.length === 0) throw new Error('nothing to summarise: no replay');
  const mean = (f: (r: DecisionReplay) => number) =>
    replays.reduce((sum, r) => sum + f(r), 0) / replays.length;
  const share = (r: DecisionReplay, n: number) => (r.waits ? n / r.waits : 0);
  const waits = replays.reduce((sum, r) => sum + r.waits, 0);
  return {
    shareOfOracle: mean((r) => r.savingPct / r.oraclePct),
    baselineShareOfOracle: mean((r) => r.baselineSavingPct / r.oraclePct),
    beatsBaseline: mean((r) => (r.savingPct - r.baselineSavingPct) / r.oraclePct) > 0,
    dearer: mean((r) => share(r, r.dearer)),
    severe: mean((r) => share(r, r.severe)),
    pooledSevere: waits ? replays.reduce((sum, r) => sum + r.severe, 0) / waits : 0,
    waits,
  };
}
