// The load of `npm run bench -- throughput`: autocannon on the host and on the references in
// alternating slices, so that load from elsewhere on a shared machine falls on all alike, with the
// CPU time each server process spent per request (steadier than req/s when other work shares the CPU).
import autocannon from 'autocannon';
import { cpuMsOf } from './process-tree';

export const CONNECTIONS = 100;
export const ROUNDS = 3;
export const SLICE_SECONDS = 2;

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

/** Figures of one side over its slices: req/s over the whole time, median p50, worst p99, CPU per request. */
function summarise(runs: Run[]) {
  const sorted = runs.map((r) => r.latency.p50).sort((a, b) => a - b);
  const codes: Record<string, number> = {};
  for (const r of runs) {
    for (const [code, { count }] of Object.entries(r.statusCodeStats as Record<string, { count: number }>))
      codes[code] = (codes[code] ?? 0) + count;
  }
  const requests = runs.reduce((sum, r) => sum + r.requests.total, 0);
  return {
    rps: requests / runs.reduce((sum, r) => sum + r.duration, 0),
    p50: sorted[Math.floor(sorted.length / 2)] ?? 0,
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    cpuUsPerRequest: (runs.reduce((sum, r) => sum + r.cpuMs, 0) * 1000) / Math.max(1, requests),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    codes,
  };
}

export type SideFigures = ReturnType<typeof summarise>;

/** ROUNDS rounds of one slice on each target in turn, after one uncounted; `headers` go with every request. */
export async function sideBySide<K extends string>(
  targets: Record<K, Target>,
  headers: Record<string, string> = {},
): Promise<Record<K, SideFigures>> {
  const runs = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as Run[]])) as Record<K, Run[]>;
  // A first slice each, not counted: the JIT warms up on this path.
  for (const k of Object.keys(targets) as K[]) await load(targets[k], headers);
  for (let i = 0; i < ROUNDS; i++) {
    for (const k of Object.keys(targets) as K[]) runs[k].push(await load(targets[k], headers));
  }
  return Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, summarise(r as Run[])])) as Record<
    K,
    SideFigures
  >;
}

/** One line of the table: the host, then each reference with the host's ratio to it. */
export function row(
  path: string,
  figures: { host: SideFigures; same: SideFigures; bare: SideFigures },
  bad: string,
): string[] {
  const { host, same, bare } = figures;
  const versus = (ref: SideFigures) => [
    ref.rps.toFixed(0),
    ref.cpuUsPerRequest.toFixed(0),
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
