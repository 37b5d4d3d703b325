/**
 * Reproducible search for the send-or-wait decision's constants, on tuning data only:
 *
 *   npx tsx scripts/tune-decision.ts [--data-dir ../shared/data] [--placements 8]
 *
 * Reads the tuning parts (first two thirds, `selectTuningRows`) of the three hourly series the
 * back-test scores and the whole 2021 base-fee series (which the back-test never scores). Each is
 * also copied `--placements` times with synthetic spikes (20x-100x for 1-6 h, about one a fortnight),
 * each copy with its own placement (seeds 1000 + 100 x series + copy, which the README's stress
 * runs, seeds 1 to 20, do not use): one placement is a lottery, since a handful of waits that land
 * in a spike decide its figures. It walks every series once as the back-test does, keeping each
 * origin's forecast and risk basis, then replays the decision under every candidate set of
 * constants (the decision is cheap; the forecast does not depend on them).
 *
 * Candidates are ranked by, in order:
 * 1. the tail bound: at most 1.5 % of waits end above twice the price of sending at once, on every
 *    spike-free series and on average over every series' spiked copies;
 * 2. the dearer bound: at most 12 % of waits end dearer, measured the same way;
 * 3. the number of spike-free series on which the decision beats the hour-of-day baseline;
 * 4. the mean share of the oracle's saving on the spike-free series (a spike makes the oracle's
 *    saving at every origin near it huge and unreachable without foresight, so the spiked copies
 *    constrain the tail and do not set the objective).
 * The bounds sit below the targets (2 % and 15 %) to leave room for data the search has not seen.
 * Prints the ranking as JSON. Before copying the winner into `DEFAULT_FORECAST_PARAMS` by hand, check
 * it on the tuning parts of the README's 20-placement stress test (`npm run backtest -- ... --seeds
 * 1-20`): 8 placements can miss what 20 show.
 */
import { parseArgs } from 'node:util';
import { type DecisionCandidate, decideSendOrWait } from '../lib/forecast/decision';
import { type DecisionReplay, summariseReplays } from '../lib/forecast/decision-replay';
import { forecastGas, prepareForecast } from '../lib/forecast/forecast-gas';
import { decideByHourOfDay } from '../lib/forecast/hour-of-day-baseline';
import { buildLogSeries, HOUR_MS } from '../lib/forecast/hourly-series';
import { injectSpikes } from '../lib/forecast/inject-spikes';
import { DEFAULT_FORECAST_PARAMS, type ForecastParams } from '../lib/forecast/params';
import { jumpRiskOf, type RiskBasis } from '../lib/forecast/wait-risk';
import type { SeriesRow } from './lib/csv';
import { readSourceRows, readTuningRows, SCORED_SERIES, SERIES_2021, SERIES_2026 } from './lib/tuning-data';

const HORIZON = 24;
const WARMUP = 168;

/** One origin as the decision replay needs it. */
interface Origin {
  index: number;
  now: number;
  current: number;
  candidates: DecisionCandidate[];
  risk: RiskBasis;
}

interface Walked {
  values: number[];
  start: number;
  origins: Origin[];
  baselineSavingPct: number;
  oraclePct: number;
}

/** Walks a series as the back-test does and keeps what the decision replay needs. */
function walk(name: string, rows: readonly SeriesRow[]): Walked {
  const series = buildLogSeries(rows);
  const values = Array.from(series.values, (v) => Math.exp(v));
  const points = values
    .map((value, i) => ({ time: (series.start + i) * HOUR_MS, low: value, average: value, high: value }))
    .filter((p) => Number.isFinite(p.average));
  const origins: Origin[] = [];
  let baselineSum = 0;
  let oracleSum = 0;
  for (let i = WARMUP; i + HORIZON < values.length; i++) {
    const window = values.slice(i, i + HORIZON + 1);
    if (window.some((v) => !Number.isFinite(v))) continue;
    const now = (series.start + i) * HOUR_MS;
    const current = values[i] ?? Number.NaN;
    const history = points.filter((p) => p.time < now);
    const basis = prepareForecast(history, now, '24h');
    const forecast = forecastGas(
      { history, current: { low: current, average: current, high: current }, now, horizon: '24h' },
      DEFAULT_FORECAST_PARAMS,
      basis,
    );
    origins.push({
      index: i,
      now,
      current,
      candidates: forecast.predictions.map((p, k) => ({
        hour: series.start + i + k + 1,
        lead: k + 1,
        average: p.average,
      })),
      risk: basis.risk,
    });
    const baseline = decideByHourOfDay(values, i, series.start % 24, HORIZON);
    baselineSum += (100 * (current - (values[i + baseline.lead] ?? current))) / current;
    oracleSum += (100 * (current - Math.min(...window))) / current;
  }
  if (origins.length === 0 || !(oracleSum > 0)) {
    throw new Error(
      `${name}: no origin to score, or nothing an oracle could save (need 8 days of varying values)`,
    );
  }
  return {
    values,
    start: series.start,
    origins,
    baselineSavingPct: baselineSum / origins.length,
    oraclePct: oracleSum / origins.length,
  };
}

/** Replays the decision under `params` on a walked series. */
function replay(walked: Walked, params: ForecastParams): DecisionReplay {
  let saving = 0;
  let waits = 0;
  let dearer = 0;
  let severe = 0;
  for (const o of walked.origins) {
    const risk = { ...o.risk, jump: jumpRiskOf(o.risk.jump.record, params) };
    const decision = decideSendOrWait(o.current, o.now, o.candidates, risk, params);
    if (decision.recommendation !== 'wait') continue;
    const paid = walked.values[Date.parse(decision.nextBestAt) / HOUR_MS - walked.start] ?? o.current;
    saving += (100 * (o.current - paid)) / o.current;
    waits++;
    if (paid > o.current) dearer++;
    if (paid > 2 * o.current) severe++;
  }
  return {
    savingPct: saving / walked.origins.length,
    oraclePct: walked.oraclePct,
    baselineSavingPct: walked.baselineSavingPct,
    waits,
    dearer,
    severe,
  };
}

const GRID = {
  waitMinSaving: [0.05, 0.1],
  waitMaxSevereProbability: [0.01, 0.015, 0.02],
  waitMaxDearerProbability: [0.15, 0.2, 0.3, 0.45],
  waitCostPerHour: [0.002, 0.006],
  jumpPriorHours: [720, 1440, 2880],
  jumpPriorMultiplier: [5, 10, 20],
} satisfies Partial<Record<keyof ForecastParams, number[]>>;

/** The bounds a candidate must meet (below the targets of 2 % and 15 %, as margin). */
const MAX_SEVERE = 0.015;
const MAX_DEARER = 0.12;

/** Every combination of the grid's values over the defaults. */
function* candidates(): Generator<ForecastParams> {
  const keys = Object.keys(GRID) as (keyof typeof GRID)[];
  const pick = (i: number, acc: ForecastParams): Generator<ForecastParams> =>
    (function* () {
      const key = keys[i];
      if (!key) return yield acc;
      for (const value of GRID[key]) yield* pick(i + 1, { ...acc, [key]: value });
    })();
  yield* pick(0, { ...DEFAULT_FORECAST_PARAMS });
}

const { values: args } = parseArgs({
  options: { 'data-dir': { type: 'string' }, placements: { type: 'string', default: '8' } },
});
const dataDir = args['data-dir'] ?? '../shared/data';
const copies = Number(args.placements);
if (!Number.isInteger(copies) || copies < 1 || copies > 99) {
  throw new Error(`--placements must be a whole number from 1 to 99, got ${args.placements}`);
}
const sources: { name: string; rows: SeriesRow[] }[] = [];
for (const source of [...SCORED_SERIES, SERIES_2026]) {
  sources.push({ name: `${source.file} (tuning part)`, rows: await readTuningRows(dataDir, source) });
}
sources.push({ name: SERIES_2021.file, rows: await readSourceRows(dataDir, SERIES_2021) });

/** Each series walked as it is, and its spiked copies. */
const families: { name: string; spikes: number; plain: Walked; spiked: Walked[] }[] = [];
for (const [i, { name, rows }] of sources.entries()) {
  const days = (rows.length > 0 ? (rows.at(-1)?.time ?? 0) - (rows[0]?.time ?? 0) : 0) / 86_400_000;
  const spikes = Math.max(1, Math.round(days / 14));
  const spiked = Array.from({ length: copies }, (_, j) =>
    walk(
      `${name} + spikes (seed ${1000 + 100 * i + j})`,
      injectSpikes(rows, { count: spikes, seed: 1000 + 100 * i + j }).rows,
    ),
  );
  families.push({ name, spikes, plain: walk(name, rows), spiked });
  console.error(`walked ${name} and ${copies} copies with ${spikes} spikes each`);
}

const ranked = [...candidates()]
  .map((params) => {
    const plain = families.map((f) => ({ series: f.name, ...summariseReplays([replay(f.plain, params)]) }));
    const spiked = families.map((f) => ({
      series: `${f.name} + ${f.spikes} spikes, mean over ${copies} placements`,
      ...summariseReplays(f.spiked.map((w) => replay(w, params))),
    }));
    const scores = [...plain, ...spiked];
    const withinTail = scores.every((s) => s.severe <= MAX_SEVERE);
    const withinDearer = scores.every((s) => s.dearer <= MAX_DEARER);
    // Spikes make every origin's oracle saving huge and unreachable without foresight; the spiked
    // copies constrain the tail, the spike-free series set the objective.
    const objective = plain.reduce((sum, s) => sum + s.shareOfOracle, 0) / plain.length;
    const baselineBeaten = plain.filter((s) => s.beatsBaseline).length;
    return { params, withinTail, withinDearer, baselineBeaten, objective, scores };
  })
  .sort(
    (a, b) =>
      Number(b.withinTail) - Number(a.withinTail) ||
      Number(b.withinDearer) - Number(a.withinDearer) ||
      b.baselineBeaten - a.baselineBeaten ||
      b.objective - a.objective,
  );

const pickKeys = (p: ForecastParams) =>
  Object.fromEntries(Object.keys(GRID).map((key) => [key, p[key as keyof ForecastParams]]));
const isDefault = (p: ForecastParams) =>
  Object.keys(GRID).every(
    (k) => p[k as keyof ForecastParams] === DEFAULT_FORECAST_PARAMS[k as keyof ForecastParams],
  );
console.log(
  JSON.stringify(
    { ranked: ranked.map((r) => ({ ...r, params: pickKeys(r.params), isDefault: isDefault(r.params) })) },
    null,
    2,
  ),
);
