// `npm run bench -- throughput [--only PATH|stalled-log] [--soak [MINUTES]] [--warmup N] [--rounds N] [--runs N] [--no-pin] [--aa]`: the Node host as a self-hoster runs it (`npm start`,
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
// `--aa` adds a second constant app (the "twin", serving the same pages) to every round, beside the host,
// and prints its ratio to the same-headers app too: what the method gives when nothing differs (A/A).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CACHEABLE_REQUESTS } from '../test/helpers/cacheable-endpoints';
import { startUpstreams, type Upstreams } from '../test/upstreams';
import { printTable, summariseRuns } from './across-runs';
import { firstOk, pinAll, serverOf, startProcess, stopProcess } from './bench-processes';
import { type CpuPlan, cpuPlan, pin } from './cpu-pinning';
import {
  CONNECTIONS,
  DEFAULT_SLICING,
  pairedRatio,
  row,
  type SideFigures,
  SLICE_SECONDS,
  type Slicing,
  sideBySide,
} from './load-side-by-side';
import { mib, processTree, rssOf, watchTreeRss } from './process-tree';
import { seedHistory } from './seed-history';
import { STALLED_LOG, soak, stalledLogReader } from './throughput-phases';

const ENDPOINTS: readonly string[] = CACHEABLE_REQUESTS;

const upstreamTotal = (up: Upstreams) => up.all.reduce((sum, sim) => sum + sim.requests.total, 0);

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
  const aa = process.argv.includes('--aa');
  if (only === STALLED_LOG && runs > 1)
    throw new Error('--runs repeats the side-by-side load, which --only stalled-log leaves out');
  const up = await startUpstreams();
  const workDir = mkdtempSync(join(tmpdir(), 'gas-bench-throughput-'));
  try {
    const seededDir = join(workDir, 'seeded');
    mkdirSync(seededDir);
    const seeded = await seedHistory(seededDir, Date.now());
    console.log(
      `PGlite in ${seededDir}: ${seeded.mainnet} mainnet and ${seeded.l2} L2 snapshots (35 / 8 days), back-test caught up`,
    );
    // Every start gets a copy of the seeded store of its own, so none starts on what an earlier host wrote.
    const freshStore = (name: string) => {
      const dir = join(workDir, name);
      cpSync(seededDir, dir, { recursive: true });
      return dir;
    };
    const port = 18_000 + Math.floor(Math.random() * 2000);
    const env = { ...process.env, ...up.env, PORT: String(port) };
    const plan = process.argv.includes('--no-pin') ? undefined : cpuPlan();
    const ratios: Map<string, number>[] = [];
    const twinRatios: Map<string, number>[] = [];
    let pinned = false;
    for (let run = 1; run <= runs; run++) {
      if (runs > 1) console.log(`\n=== run ${run} of ${runs}: a fresh npm start and constant app`);
      const dataDir = freshStore(`run-${run}`);
      const result = await measureRun({ up, env, port, dataDir, plan, slicing, only, aa });
      try {
        ratios.push(result.ratios);
        twinRatios.push(result.twinRatios);
        pinned = result.pinned;
        // The soak keeps the last run's host; every other run's servers stop here.
        if (run === runs && soakMinutes > 0)
          await soak(result.base, result.serverPid, result.tree, soakMinutes);
      } finally {
        await result.stop();
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
    if (runs > 1) summariseRuns(ratios);
    if (runs > 1 && aa) summariseRuns(twinRatios, 'the twin constant app (A/A)');

    if (!only || only === STALLED_LOG) {
      const stalledEnv = { ...env, PORT: String(port + 1), DATA_DIR: freshStore('stalled-log') };
      await stalledLogReader(stalledEnv, port + 1, pinned ? plan : undefined);
    }
  } finally {
    await up.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** One run: `npm start` on the seeded data and the constant app, both fresh, then the load on every endpoint. */
async function measureRun(ctx: {
  up: Upstreams;
  /** The host's environment but for DATA_DIR, which is `dataDir`. */
  env: NodeJS.ProcessEnv;
  port: number;
  dataDir: string;
  plan: CpuPlan | undefined;
  slicing: Slicing;
  only: string | undefined;
  /** Adds the twin constant app to every round (`--aa`). */
  aa: boolean;
}) {
  const { up, env, port, dataDir, plan, slicing, only, aa } = ctx;
  // A previous run pinned this process to the load's CPUs; start-up is measured on all of them.
  if (plan && !pin(process.pid, plan.all))
    console.log("taskset failed: start-up measured on the load's CPUs");
  const started = performance.now();
  const host = startProcess(
    'npm',
    ['start', '--silent'],
    { ...env, DATA_DIR: dataDir },
    /info listening/,
    join(dataDir, 'host.log'),
  );
  const tree = watchTreeRss(host.child.pid as number);
  const constants: ReturnType<typeof startProcess>[] = [];
  const stop = async () => {
    tree.stop();
    await stopProcess(host.child);
    for (const constant of constants) await stopProcess(constant.child);
  };
  try {
    const base = `http://127.0.0.1:${port}`;
    // (Its failure is reported by the wait below, not a second time here.)
    const listeningMs = host.started.then(
      () => performance.now() - started,
      () => Number.NaN,
    );
    // A host that exits before it listens rejects `started` instead of leaving firstOk to wait forever.
    await Promise.all([firstOk(`${base}/api/gas`), host.started]);
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
    const startConstant = async () => {
      const started = startProcess(
        process.execPath,
        ['bench/constant-app.mjs', bodiesFile],
        process.env,
        /ready (\d+)/,
      );
      constants.push(started);
      return { pid: started.child.pid as number, base: `http://127.0.0.1:${(await started.started)[1]}` };
    };
    const reference = await startConstant();
    const twin = aa ? await startConstant() : undefined;
    const pinned =
      plan !== undefined &&
      pinAll(
        plan,
        host.child.pid as number,
        constants.map((c) => c.child.pid as number),
      );
    console.log(
      pinned
        ? `CPUs: load generator and simulators on ${plan.load}, the servers on ${plan.servers} (taskset, after start-up)`
        : `CPUs: placement left to the kernel${plan ? ' (taskset failed; every process set back to all CPUs)' : ''}`,
    );
    const upstreamBefore = upstreamTotal(up);
    const loadStarted = performance.now();
    const rows: string[][] = [];
    const twinRows: string[][] = [];
    const ratios = new Map<string, number>();
    const twinRatios = new Map<string, number>();
    let bad = 0;
    const targets = (path: string): Record<string, { url: string; pid: number }> => ({
      host: { url: `${base}${path}`, pid: server.pid },
      same: { url: `${reference.base}${path}`, pid: reference.pid },
      bare: { url: `${reference.base}/bare${path}`, pid: reference.pid },
      ...(twin ? { twin: { url: `${twin.base}${path}`, pid: twin.pid } } : {}),
    });
    /** Non-2xx answers (other than the 304s asked for) and errors of one side over every slice. */
    const unexpected = (side: SideFigures, asked304: boolean) =>
      side.non2xx - (asked304 ? (side.codes['304'] ?? 0) : 0) + side.errors;
    /**
     * Keeps a row's ratios (and with `--aa` the twin's), counts every side's unexpected answers
     * (the bare app ignores If-None-Match, so it answers 200 even there) and returns the figures.
     */
    const record = (label: string, figures: Record<string, SideFigures>, asked304: boolean) => {
      const sides = { host: figures.host!, same: figures.same!, bare: figures.bare! };
      ratios.set(label, pairedRatio(sides.host, sides.same));
      bad +=
        unexpected(sides.host, asked304) + unexpected(sides.same, asked304) + unexpected(sides.bare, false);
      const twinFigures = figures.twin;
      if (twinFigures) {
        bad += unexpected(twinFigures, asked304);
        const twinRatio = pairedRatio(twinFigures, sides.same);
        twinRatios.set(label, twinRatio);
        twinRows.push([
          label,
          twinFigures.rps.toFixed(0),
          twinFigures.cpuUsPerRequest.toFixed(0),
          twinRatio.toFixed(2),
          (ratios.get(label) as number).toFixed(2),
        ]);
      }
      return sides;
    };
    for (const path of ENDPOINTS.filter((p) => !only || p === only)) {
      const figures = record(path, await sideBySide(targets(path), {}, slicing), false);
      const got = figures.host;
      if (got.non2xx > 0) console.log(`${path}: status codes ${JSON.stringify(got.codes)}`);
      rows.push(row(path, figures, `${got.non2xx}/${got.errors}`));
    }
    for (const path of only ? [] : ['/api/dashboard', '/openapi.json']) {
      const etag = (await fetch(`${base}${path}`)).headers.get('etag') ?? '';
      const label = `${path} (304)`;
      const headers = { 'If-None-Match': etag };
      const figures = record(label, await sideBySide(targets(path), headers, slicing), true);
      const got = figures.host;
      const other = got.non2xx - (got.codes['304'] ?? 0);
      rows.push(row(label, figures, `${other} non-304/${got.errors}`));
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
        `${SLICE_SECONDS} s on the host and on ${twin ? 'the same-headers, bare and twin apps' : 'both references'} in turn (each round starting with the next); ` +
        `"median of rounds": the median over rounds of the host's req/s over the reference's in that round\n`,
    );
    printTable(header, rows);
    if (twin) {
      console.log(
        '\nA/A (--aa): the twin constant app, serving the same pages, in the same rounds as the host\n',
      );
      printTable(
        ['endpoint', 'twin req/s', 'CPU µs/req', 'twin ratio, median of rounds', 'host ratio (as above)'],
        twinRows,
      );
    }
    console.log(
      `\nnon-2xx (other than the 304s asked for) and errors over every run, of every server: ${bad}`,
    );
    console.log(
      `upstream requests during ${loadSeconds.toFixed(0)} s of load: ${upstream} ` +
        `(${(upstream / (loadSeconds / 30)).toFixed(1)} per 30 s, the snapshot job's reads included)`,
    );
    console.log(`peak RSS: server ${mib(rssOf(server.pid, 'VmHWM'))}, npm start tree ${mib(tree.peak())}`);

    return { ratios, twinRatios, pinned, base, serverPid: server.pid, tree, stop };
  } catch (error) {
    await stop();
    throw error;
  }
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

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
