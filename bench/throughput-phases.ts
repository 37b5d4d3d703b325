// Phases of `npm run bench -- throughput` besides the side-by-side load: a stalled log reader and the soak.
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { CACHEABLE_REQUESTS } from '../test/helpers/cacheable-endpoints';
import { pinTree, serverOf } from './bench-processes';
import type { CpuPlan } from './cpu-pinning';
import { CONNECTIONS } from './load-side-by-side';
import { mib, rssOf, type watchTreeRss } from './process-tree';

const STALLED_SECONDS = 20;
/** The `--only` value that runs the stalled-log phase alone. */
export const STALLED_LOG = 'stalled-log';

/**
 * The host's log read through a pipe whose reader stops (a stalled log shipper): the same history,
 * `npm start` with its stdout a pipe this process stops reading once the host is ready, then
 * STALLED_SECONDS of full load on /api/gas. Prints the server's RSS before and at its peak, then
 * resumes reading and counts the request lines that arrived and those the host reported dropped.
 */
export async function stalledLogReader(env: NodeJS.ProcessEnv, port: number, plan?: CpuPlan): Promise<void> {
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
export async function soak(
  base: string,
  pid: number,
  tree: ReturnType<typeof watchTreeRss>,
  minutes: number,
) {
  console.log(`\nsoak: ${minutes} min, every endpoint in turn, 20 connections at 2,000 req/s`);
  const run = autocannon({
    url: base,
    connections: 20,
    overallRate: 2000,
    duration: minutes * 60,
    requests: CACHEABLE_REQUESTS.map((path) => ({ method: 'GET', path })),
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
