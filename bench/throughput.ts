// `npm run bench -- throughput [--only PATH|stalled-log] [--soak [MINUTES]] [--warmup N] [--rounds N] [--runs N] [--no-pin]`: the Node host as a self-hoster runs it (`npm start`,
// embedded PGlite holding 35 days of history, the local simulators as upstreams) against a
// constant-JSON Hono app on the same Node (serving the same bytes per path), both driven by autocannon with 100 connections, endpoint by
// endpoint, side by side (N uncounted rounds, default 2, then N counted, default 5). Prints req/s,
// p50/p99, the ratios to the constant app (median of the rounds' and of the totals), 304 throughput, non-2xx
// and errors, upstream requests, peak RSS of the server and of the `npm start` tree, and time to ready.
// Once both servers are up, this process (the load generator and the simulators) and the servers are
// pinned to separate halves of the CPUs (bench/cpu-pinning.ts); `--no-pin` leaves placement to the kernel.
// `--runs N` repeats all that N times, each with a fresh `npm start` and constant app (a process keeps
// the speed it started with), and prints each row's ratio per run and its median over the runs.
// `--soak` then keeps a steady load on the last run's host for MINUTES (default 10) and prints RSS every 30 s.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { CACHEABLE_REQUESTS } from '../test/helpers/cacheable-endpoints';
import { startUpstreams, type Upstreams } from '../test/upstreams';
import { type CpuPlan, cpuPlan, pin } from './cpu-pinning';
import {
  acrossRuns,
  CONNECTIONS,
  DEFAULT_SLICING,
  pairedRatio,
  row,
  SLICE_SECONDS,
  type Slicing,
  sideBySide,
} from './load-side-by-side';
import { mib, processTree, rssOf, watchTreeRss } from './process-tree';
import { seedHistory } from './seed-history';

const ENDPOINTS: readonly string[] = CACHEABLE_REQUESTS;

/**
 * Starts a process and resolves once `ready` matches its output. With `logFile`, its output goes to
 * that file, as with `npm start >> gas.log`: through a pipe to this process, which also runs the
 * load generator, the host's memory grew by tens of MB under load, most likely its queue of log
 * lines (one per request) waiting for this process to read them.
 */
function startProcess(
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

async function firstOk(url: string): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 10));
  }
}

const upstreamTotal = (up: Upstreams) => up.all.reduce((sum, sim) => sum + sim.requests.total, 0);

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function main(): Promise<void> {
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt < 0 ? undefined : process.argv[onlyAt + 1];
  const soakAt = process.argv.indexOf('--soak');
  const soakMinutes = soakAt < 0 ? 0 : Number(process.argv[soakAt + 1] ?? 10) || 10;
  const slicing: Slicing = {
    warmup: countOption('--warmup', DEFAULT_SLICING.warmup, 0),
    rounds: countOption('--rounds', DEFAULT_SLICING.rounds, 1),
  };
  const runs = countOption('--runs', 1, 1);
  const up = await startUpstreams();
  const dataDir = mkdtempSync(join(tmpdir(), 'gas-bench-throughput-'));
  const seeded = await seedHistory(dataDir, Date.now());
  console.log(
    `PGlite in ${dataDir}: ${seeded.mainnet} mainnet and ${seeded.l2} L2 snapshots (35 / 8 days), back-test caught up`,
  );

  const port = 18_000 + Math.floor(Math.random() * 2000);
  const env = { ...process.env, ...up.env, PORT: String(port), DATA_DIR: dataDir };
  const plan = process.argv.includes('--no-pin') ? undefined : cpuPlan();
  const ratios: Map<string, number>[] = [];
  let pinned = false;
  for (let run = 1; run <= runs; run++) {
    if (runs > 1) console.log(`\n=== run ${run} of ${runs}: a fresh npm start and constant app`);
    const result = await measureRun({ up, env, port, dataDir, plan, slicing, only, run });
    ratios.push(result.ratios);
    pinned = result.pinned;
    // The soak keeps the last run's host; every other run's servers stop here.
    if (run === runs && soakMinutes > 0) await soak(result.base, result.serverPid, result.tree, soakMinutes);
    await result.stop();
  }
  if (runs > 1) summariseRuns(ratios);

  if (!only || only === STALLED_LOG)
    await stalledLogReader({ ...env, PORT: String(port + 1) }, port + 1, pinned ? plan : undefined);
  await up.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** One run: `npm start` on the seeded data and the constant app, both fresh, then the load on every endpoint. */
async function measureRun(ctx: {
  up: Upstreams;
  env: NodeJS.ProcessEnv;
  port: number;
  dataDir: string;
  plan: CpuPlan | undefined;
  slicing: Slicing;
  only: string | undefined;
  run: number;
}) {
  const { up, env, port, dataDir, plan, slicing, only, run } = ctx;
  // A previous run pinned this process to the load's CPUs; start-up is measured on all of them.
  if (plan) pin(process.pid, plan.all);
  const started = performance.now();
  // A log file per run: start-up is read from the head of the file.
  const host = startProcess(
    'npm',
    ['start', '--silent'],
    env,
    /info listening/,
    join(dataDir, `host-${run}.log`),
  );
  const tree = watchTreeRss(host.child.pid as number);
  const base = `http://127.0.0.1:${port}`;
  const listeningMs = host.started.then(() => performance.now() - started);
  await firstOk(`${base}/api/gas`);
  const readyMs = performance.now() - started;
  const built = /built dist-node/.test(host.output()) ? ' (the bundle was rebuilt first)' : '';
  const procs = processTree(host.child.pid as number);
  const server = serverOf(host.child.pid as number);
  console.log(
    `npm start -> listening: ${(await listeningMs).toFixed(0)} ms, first 200 on /api/gas: ${readyMs.toFixed(0)} ms${built}`,
  );
  console.log(`npm start tree: ${procs.map((p) => `${p.pid} ${p.cmd.slice(0, 60)}`).join(' | ')}`);
  console.log(`server RSS when ready: ${mib(rssOf(server.pid))}, tree ${mib(tree.sample())}`);

  // The reference serves, per path, the very bytes (and, in one form, the headers) the host serves there.
  const pages: Record<
    string,
    { body: string; headers: Record<string, string>; notModified: Record<string, string> }
  > = {};
  for (const path of ENDPOINTS) {
    await fetch(`${base}${path}`).then((r) => r.arrayBuffer());
    const res = await fetch(`${base}${path}`);
    const headers = Object.fromEntries(
      [...res.headers].filter(
        ([name]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(name),
      ),
    );
    const notModified = Object.fromEntries(
      Object.entries(headers).filter(([name]) => name !== 'content-type'),
    );
    pages[path.split('?')[0] as string] = { body: await res.text(), headers, notModified };
  }
  console.log(
    `body bytes: ${Object.entries(pages)
      .map(([path, page]) => `${path} ${Buffer.byteLength(page.body)}`)
      .join(', ')}`,
  );
  const bodiesFile = join(dataDir, 'constant-pages.json');
  writeFileSync(bodiesFile, JSON.stringify(pages));
  const constant = startProcess(
    process.execPath,
    ['bench/constant-app.mjs', bodiesFile],
    process.env,
    /ready (\d+)/,
  );
  const constantBase = `http://127.0.0.1:${(await constant.started)[1]}`;
  const pinned = plan !== undefined && pinAll(plan, host.child.pid as number, constant.child.pid as number);
  console.log(
    pinned
      ? `CPUs: load generator and simulators on ${plan.load}, the servers on ${plan.servers} (taskset, after start-up)`
      : `CPUs: placement left to the kernel${plan ? ' (taskset failed; every process set back to all CPUs)' : ''}`,
  );
  const upstreamBefore = upstreamTotal(up);
  const loadStarted = performance.now();
  const rows: string[][] = [];
  const ratios = new Map<string, number>();
  let bad = 0;
  const targets = (path: string) => ({
    host: { url: `${base}${path}`, pid: server.pid },
    same: { url: `${constantBase}${path}`, pid: constant.child.pid as number },
    bare: { url: `${constantBase}/bare${path}`, pid: constant.child.pid as number },
  });
  for (const path of ENDPOINTS.filter((p) => !only || p === only)) {
    const figures = await sideBySide(targets(path), {}, slicing);
    const got = figures.host;
    bad += got.non2xx + got.errors + figures.same.non2xx + figures.bare.non2xx;
    if (got.non2xx > 0) console.log(`${path}: status codes ${JSON.stringify(got.codes)}`);
    rows.push(row(path, figures, `${got.non2xx}/${got.errors}`));
    ratios.set(path, pairedRatio(figures.host, figures.same));
  }
  for (const path of only ? [] : ['/api/dashboard', '/openapi.json']) {
    const etag = (await fetch(`${base}${path}`)).headers.get('etag') ?? '';
    const figures = await sideBySide(targets(path), { 'If-None-Match': etag }, slicing);
    const got = figures.host;
    const other = got.non2xx - (got.codes['304'] ?? 0);
    bad += other + got.errors;
    rows.push(row(`${path} (304)`, figures, `${other} non-304/${got.errors}`));
    ratios.set(`${path} (304)`, pairedRatio(figures.host, figures.same));
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const upstream = upstreamTotal(up) - upstreamBefore;

  const header = [
    'endpoint',
    'req/s',
    'p50 ms',
    'p99 ms',
    'CPU µs/req',
    'same-headers constant: req/s',
    'CPU µs/req',
    'ratio req/s, median of rounds',
    'of totals',
    'ratio CPU',
    'bare constant: req/s',
    'CPU µs/req',
    'ratio req/s, median of rounds',
    'of totals',
    'ratio CPU',
    'non-2xx/errors',
  ];
  console.log(
    `\n${CONNECTIONS} connections; per endpoint, ${slicing.warmup} uncounted round(s), then ${slicing.rounds} round(s) of ` +
      `${SLICE_SECONDS} s on the host and on both references in turn (each round starting with the next); ` +
      `"median of rounds": the median over rounds of the host's req/s over the reference's in that round\n`,
  );
  printTable(header, rows);
  console.log(`\nnon-2xx (other than the 304s asked for) and errors over every run: ${bad}`);
  console.log(
    `upstream requests during ${loadSeconds.toFixed(0)} s of load: ${upstream} ` +
      `(${(upstream / (loadSeconds / 30)).toFixed(1)} per 30 s, the snapshot job's reads included)`,
  );
  console.log(`peak RSS: server ${mib(rssOf(server.pid, 'VmHWM'))}, npm start tree ${mib(tree.peak())}`);

  return {
    ratios,
    pinned,
    base,
    serverPid: server.pid,
    tree,
    async stop() {
      tree.stop();
      await stopProcess(host.child);
      await stopProcess(constant.child);
    },
  };
}

/** A table with the first column left-aligned and the others right-aligned. */
function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

/** With `--runs N`: each row's ratio in every run and its median over the runs (`acrossRuns`). */
function summariseRuns(ratios: Map<string, number>[]): void {
  const summary = acrossRuns(ratios, 0.8);
  console.log(
    `\nover ${ratios.length} runs, each with a fresh npm start and constant app: req/s ratio to the same-headers app`,
  );
  printTable(
    ['endpoint', ...ratios.map((_, i) => `run ${i + 1}`), 'median of runs'],
    summary.rows.map((r) => [r.path, ...r.perRun.map((v) => v.toFixed(2)), r.median.toFixed(2)]),
  );
  console.log(
    `rows at 0.8x or better: ${summary.atTargetPerRun.join(', ')} of ${summary.rows.length} per run; ` +
      `${summary.atTargetByMedian} of ${summary.rows.length} by the median of runs`,
  );
}

/** A whole-number option `--name N` of at least `min`, or `fallback` when absent. */
function countOption(name: string, fallback: number, min: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} takes a whole number of at least ${min}, got "${process.argv[at + 1] ?? ''}"`);
  }
  return value;
}

/** Pins an `npm start` tree (npm and the server, every thread) to `cpus`; tries every process, true if all took it. */
function pinTree(root: number, cpus: string): boolean {
  return processTree(root)
    .map((p) => pin(p.pid, cpus))
    .every(Boolean);
}

/**
 * Pins this process to the load's CPUs and the host's tree and the constant app to the servers'.
 * All or nothing: if any pin fails, every process is set back to all CPUs, so a run is never half pinned.
 */
function pinAll(plan: CpuPlan, hostRoot: number, constantPid: number): boolean {
  const done = [pin(process.pid, plan.load), pinTree(hostRoot, plan.servers), pin(constantPid, plan.servers)];
  if (done.every(Boolean)) return true;
  pin(process.pid, plan.all);
  pinTree(hostRoot, plan.all);
  pin(constantPid, plan.all);
  return false;
}

/** The server in an `npm start` tree: the deepest process running an entry point (npm and sh sit above it). */
function serverOf(root: number): { pid: number; cmd: string } {
  const procs = processTree(root);
  return (
    procs.filter((p) => /(main|start)\.(ts|m?js)\b/.test(p.cmd)).at(-1) ?? (procs.at(-1) as (typeof procs)[0])
  );
}

/**
 * The host's log read through a pipe whose reader stops (a stalled log shipper): the same history,
 * `npm start` with its stdout a pipe this process stops reading once the host is ready, then
 * STALLED_SECONDS of full load on /api/gas. Prints the server's RSS before and at its peak, then
 * resumes reading and counts the request lines that arrived and those the host reported dropped.
 */
const STALLED_SECONDS = 20;
const STALLED_LOG = 'stalled-log';
async function stalledLogReader(env: NodeJS.ProcessEnv, port: number, plan?: CpuPlan): Promise<void> {
  const child = spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let tail = '';
  let requestLines = 0;
  let dropped = 0;
  let ready = false;
  const onReady: (() => void)[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (tail + chunk.toString()).split('\n');
    tail = lines.pop() ?? '';
    for (const line of lines) {
      if (line.includes(' info GET /api/gas ')) requestLines += 1;
      const note = line.match(/warn (\d+) log lines dropped/);
      if (note) dropped += Number(note[1]);
      if (!ready && /info scheduled run/.test(line)) {
        ready = true;
        for (const resolve of onReady) resolve();
      }
    }
  });
  await new Promise<void>((resolve) => onReady.push(resolve));
  // This server inherited the load's CPUs from this process; it gets the servers' like the first.
  if (plan && !pinTree(child.pid as number, plan.servers)) console.log('stalled log reader: taskset failed');
  const server = serverOf(child.pid as number);
  const before = rssOf(server.pid);
  child.stdout?.pause();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/api/gas`,
    connections: CONNECTIONS,
    duration: STALLED_SECONDS,
  });
  const peak = rssOf(server.pid, 'VmHWM');
  child.stdout?.resume();
  // 'close': the server, which holds the pipe after npm is gone, has exited and every line is read.
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  await closed;
  console.log(
    `\nstalled log reader (stdout a pipe not read during ${STALLED_SECONDS} s of load on /api/gas): ` +
      `${result.requests.total} requests, non-2xx ${result.non2xx}, errors ${result.errors}; server RSS ` +
      `${mib(before)} before, peak ${mib(peak)}; request lines written ${requestLines}, reported dropped ${dropped}, ` +
      `unaccounted ${result.requests.total - requestLines - dropped}`,
  );
}

/** A steady mixed load for `minutes`, printing the server's and the tree's RSS every 30 s. */
async function soak(base: string, pid: number, tree: ReturnType<typeof watchTreeRss>, minutes: number) {
  console.log(`\nsoak: ${minutes} min, every endpoint in turn, 20 connections at 2,000 req/s`);
  const run = autocannon({
    url: base,
    connections: 20,
    overallRate: 2000,
    duration: minutes * 60,
    requests: ENDPOINTS.map((path) => ({ method: 'GET', path })),
  });
  const started = Date.now();
  const timer = setInterval(() => {
    const s = Math.round((Date.now() - started) / 1000);
    console.log(`  ${String(s).padStart(4)} s  server ${mib(rssOf(pid))}  tree ${mib(tree.sample())}`);
  }, 30_000);
  const result = await run;
  clearInterval(timer);
  console.log(
    `soak: ${result.requests.total} requests, non-2xx ${result.non2xx}, errors ${result.errors + result.timeouts}, ` +
      `peak server ${mib(rssOf(pid, 'VmHWM'))}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
