// The processes of `npm run bench -- throughput`: starting a server and waiting for its ready line,
// stopping it, finding the server in an `npm start` tree, and pinning them to CPUs.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { type CpuPlan, pin } from './cpu-pinning';
import { processTree } from './process-tree';

/**
 * Starts a process and resolves once `ready` matches its output. With `logFile`, its output goes to
 * that file, as with `npm start >> gas.log`: through a pipe to this process, which also runs the
 * load generator, the host's memory grew by tens of MB under load, most likely its queue of log
 * lines (one per request) waiting for this process to read them.
 */
export function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  logFile?: string,
) {
  const fd = logFile ? openSync(logFile, 'a') : undefined;
  const child = spawn(command, args, { env, stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'] });
  if (fd !== undefined) closeSync(fd);
  let out = '';
  const collect = (chunk: Buffer) => {
    // Keep only the tail: the host logs one line per request.
    out = (out + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // The start-up lines come first in the file; later ones are the requests' log (gigabytes by the end).
  const output = () => (logFile ? headOf(logFile, 20_000) : out);
  const started = new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = () => {
      const match = output().match(ready);
      if (match) resolve(match);
      return match;
    };
    if (logFile) {
      const poll = setInterval(() => check() && clearInterval(poll), 10);
      child.once('exit', () => clearInterval(poll));
    } else child.stdout?.on('data', check);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output()}`)));
  });
  return { child, started, output };
}

/** The first `bytes` of a file, without reading the rest. */
function headOf(file: string, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString();
  } finally {
    closeSync(fd);
  }
}

export async function firstOk(url: string): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Pins an `npm start` tree (npm and the server, every thread) to `cpus`; tries every process, true if all took it. */
export function pinTree(root: number, cpus: string): boolean {
  return processTree(root)
    .map((p) => pin(p.pid, cpus))
    .every(Boolean);
}

/**
 * Pins this process to the load's CPUs and the host's tree and the constant apps to the servers'.
 * All or nothing: if any pin fails, every process is set back to all CPUs, so a run is never half pinned.
 */
export function pinAll(plan: CpuPlan, hostRoot: number, constantPids: readonly number[]): boolean {
  const done = [
    pin(process.pid, plan.load),
    pinTree(hostRoot, plan.servers),
    ...constantPids.map((pid) => pin(pid, plan.servers)),
  ];
  if (done.every(Boolean)) return true;
  pin(process.pid, plan.all);
  pinTree(hostRoot, plan.all);
  for (const pid of constantPids) pin(pid, plan.all);
  return false;
}

/** The server in an `npm start` tree: the deepest process running an entry point (npm and sh sit above it). */
export function serverOf(root: number): { pid: number; cmd: string } {
  const procs = processTree(root);
  return (
    procs.filter((p) => /(main|start)\.(ts|m?js)\b/.test(p.cmd)).at(-1) ?? (procs.at(-1) as (typeof procs)[0])
  );
}
