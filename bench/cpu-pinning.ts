// Keeps the load generator and the servers it measures on separate CPUs (`taskset`, after the
// servers have started). On a small machine the kernel otherwise places them on one core at times
// and on two at others: on the 2-core guest of README's figures the host's socket writes then cost
// up to twice the constant app's (20 to 49 µs against 13 to 20), and about the same (14 and 11 µs)
// once each side had a core of its own.
// (On a machine with hyperthreads, CPUs of the two halves may share a physical core.)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** CPU lists in taskset's syntax: one half of this process's CPUs for the load, the other for the servers. */
export interface CpuPlan {
  all: string;
  load: string;
  servers: string;
}

/** The CPUs this process may run on (`Cpus_allowed_list`, e.g. `0-3` or `0,2,4-5`); empty when unknown. */
export function allowedCpus(status = readStatus()): number[] {
  const list = status.match(/^Cpus_allowed_list:\s*(\S+)/m)?.[1];
  if (!list) return [];
  return list.split(',').flatMap((part) => {
    const bounds = part.split('-').map(Number);
    const from = bounds[0] ?? 0;
    const to = bounds[1] ?? from;
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

function readStatus(): string {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return '';
  }
}

/** The lower half of the allowed CPUs for the load, the upper half for the servers; undefined with fewer than two. */
export function cpuPlan(cpus = allowedCpus()): CpuPlan | undefined {
  if (cpus.length < 2) return undefined;
  const half = Math.floor(cpus.length / 2);
  return { all: cpus.join(','), load: cpus.slice(0, half).join(','), servers: cpus.slice(half).join(',') };
}

/** Pins every thread of `pid` (and the threads it starts later) to `cpus`; false where taskset is missing or refuses. */
export function pin(pid: number, cpus: string): boolean {
  return spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' }).status === 0;
}
