// The load of `npm run bench -- throughput`: autocannon on the host and on the references in
// alternating slices, so that load from elsewhere on a shared machine falls on all alike, with the
// CPU time each server process spent per request (steadier than req/s when other work shares the CPU).
// A target's slice and another target's slice in the same round make a pair, so each round gives a
// ratio too: the median of those ratios is what one noisy slice (a scheduling hiccup, a neighbour
// on the machine) cannot move, where the ratio of the totals can.
import autocannon from 'autocannon';
import { median } from '../lib/forecast/stats';
import { cpuMsOf } from './process-tree';

export const CONNECTIONS = 100;
export const SLICE_SECONDS = 2;

/** How many slices each target gets uncounted first (its JIT warms up on the path), and counted after. */
export interface Slicing {
  warmup: number;
  rounds: number;
}
export const DEFAULT_SLICING: Slicing = { warmup: 2, rounds: 5 };

type Run = Awaited<ReturnType<typeof autocannon>> & { cpuMs: number };
type Target = { url: string; pid: number };

/** One slice on `target`, with the CPU time its server process used meanwhile. */
async function load(target: Target, headers: Record<string, string>): Promise<Run> {
  const cpuBefore = cpuMsOf(target.pid);
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: SLICE_SECONDS,
    headers,
  });
  return Object.assign(result, { cpuMs: cpuMsOf(target.pid) - cpuBefore });
}

/**
 * Figures of one side over its counted slices: req/s over the whole time, median p50, worst p99, CPU
 * per request; the status codes, non-2xx and errors over every slice, the uncounted ones included.
 */
function summarise(runs: Run[], uncounted: Run[]) {
  const sorted = runs.map((r) => r.latency.p50).sort((a, b) => a - b);
  const codes: Record<string, number> = {};
  const every = [...uncounted, ...runs];
  for (const r of every) {
    for (const [code, { count }] of Object.entries(r.statusCodeStats as Record<string, { count: number }>))
      codes[code] = (codes[code] ?? 0) + count;
  }
  const requests = runs.reduce((sum, r) => sum + r.requests.total, 0);
  return {
    rps: requests / runs.reduce((sum, r) => sum + r.duration, 0),
    p50: sorted[Math.floor(sorted.length / 2)] ?? 0,
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    cpuUsPerRequest: (runs.reduce((sum, r) => sum + r.cpuMs, 0) * 1000) / Math.max(1, requests),
    /** req/s of each counted round, in order (what `pairedRatio` pairs). */
    roundRps: runs.map((r) => r.requests.total / r.duration),
    non2xx: every.reduce((sum, r) => sum + r.non2xx, 0),
    errors: every.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    codes,
  };
}

export type SideFigures = ReturnType<typeof summarise>;

/**
 * `slicing.rounds` rounds of one slice on each target in turn, after `slicing.warmup` uncounted
 * rounds; each round starts with the next target, so none always follows the same one. `headers`
 * go with every request.
 */
export async function sideBySide<K extends string>(
  targets: Record<K, Target>,
  headers: Record<string, string> = {},
  slicing: Slicing = DEFAULT_SLICING,
): Promise<Record<K, SideFigures>> {
  const keys = Object.keys(targets) as K[];
  const runs = Object.fromEntries(keys.map((k) => [k, [] as Run[]])) as Record<K, Run[]>;
  const uncounted = Object.fromEntries(keys.map((k) => [k, [] as Run[]])) as Record<K, Run[]>;
  for (let i = -slicing.warmup; i < slicing.rounds; i++) {
    const order = keys.map((_, j) => keys[(((i + j) % keys.length) + keys.length) % keys.length] as K);
    for (const k of order) (i >= 0 ? runs : uncounted)[k].push(await load(targets[k], headers));
  }
  return Object.fromEntries(keys.map((k) => [k, summarise(runs[k], uncounted[k])])) as Record<K, SideFigures>;
}

/** The median over rounds of the host's req/s over the reference's in the same round. */
export function pairedRatio(host: SideFigures, ref: SideFigures): number {
  return median(host.roundRps.map((rps, i) => rps / (ref.roundRps[i] ?? Number.NaN)));
}

/** One line of the table: the host, then each reference with the host's ratios to it. */
export function row(
  path: string,
  figures: { host: SideFigures; same: SideFigures; bare: SideFigures },
  bad: string,
): string[] {
  const { host, same, bare } = figures;
  const versus = (ref: SideFigures) => [
    ref.rps.toFixed(0),
    ref.cpuUsPerRequest.toFixed(0),
    pairedRatio(host, ref).toFixed(2),
    (host.rps / ref.rps).toFixed(2),
    (ref.cpuUsPerRequest / host.cpuUsPerRequest).toFixed(2),
  ];
  return [
    path,
    host.rps.toFixed(0),
    String(host.p50),
    String(host.p99),
    host.cpuUsPerRequest.toFixed(0),
    ...versus(same),
    ...versus(bare),
    bad,
  ];
}
