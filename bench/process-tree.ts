// Memory of a process and its descendants, read from /proc (Linux): what `ps` would show, sampled.
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size of one process in bytes (0 once it is gone). */
export function rssOf(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = status.match(new RegExp(`${field}:\\s+(\\d+) kB`));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The pid and its descendants, with their command lines. */
export function processTree(root: number): { pid: number; cmd: string }[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {}
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree.map((pid) => ({ pid, cmd: commandOf(pid) }));
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

/** Samples the RSS of a process tree every `everyMs` and keeps the largest sum seen. */
export function watchTreeRss(root: number, everyMs = 200) {
  let peak = 0;
  const sample = () => {
    const total = processTree(root).reduce((sum, p) => sum + rssOf(p.pid), 0);
    peak = Math.max(peak, total);
    return total;
  };
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    sample,
    peak: () => Math.max(peak, sample()),
    stop: () => clearInterval(timer),
  };
}

export const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}
