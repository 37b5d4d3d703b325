// Keeps the load generator and the servers it measures on separate CPUs (`taskset`, after the
// servers have started). On a small machine the kernel otherwise places them on one core at times
// and on two at others, and a server's req/s then follows that placement more than its own code:
// on the 2-core guest of README's figures, copies of one host process ran 0.5x to 0.8x the constant
// app side by side, each copy holding its own rate, until each side had a core of its own.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** CPU lists in taskset's syntax: one half for the load generator, the other for the servers. */
export interface CpuPlan {
  load: string;
  servers: string;
}

/** The lower half of the CPUs for the load, the upper half for the servers; undefined on one CPU. */
export function cpuPlan(cpus = availableParallelism()): CpuPlan | undefined {
  if (cpus < 2) return undefined;
  const half = Math.floor(cpus / 2);
  const range = (from: number, to: number) => (from === to ? `${from}` : `${from}-${to}`);
  return { load: range(0, half - 1), servers: range(half, cpus - 1) };
}

/** Pins every thread of `pid` (and the threads it starts later) to `cpus`; false where taskset is missing or refuses. */
export function pin(pid: number, cpus: string): boolean {
  return spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' }).status === 0;
}
