/**
 * `npm run bench -- fleet`: a fleet on one machine. Two OS processes (bench/fleet-worker.ts) host 30 app
 * instances each that read through one real redis-server behind the Upstash REST bridge, in a third
 * process (bench/fleet-redis.ts) (60 "isolates"),
 * and, side by side in the same processes and run, 30 each of the per-isolate design (no shared entry).
 * autocannon drives both over the five live-data endpoints, phase after phase: warm-up, steady, Redis stopped,
 * Redis back, Redis answering after 2 s, Redis healthy again. Prints upstream reads per kind per TTL
 * window, Redis commands per request, p50/p99, non-2xx and a body check. Asserts nothing.
 * FLEET_RATE (default 2000) is each design's request rate; FLEET_SCALE (default 1) scales the phases.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { READ_KINDS, type ReadKind } from '../test/helpers/fleet';
import { startUpstreams } from '../test/upstreams';

const PROCESSES = 2;
const PER_PROCESS = 30;
const RATE = Number(process.env.FLEET_RATE ?? 2000);
const SCALE = Number(process.env.FLEET_SCALE ?? 1);
const PATHS = ['/api/gas', '/api/eth-price', '/api/l2-gas', '/api/dashboard', '/api/gas-predictions'];
const TTL_S: Record<ReadKind, number> = Object.fromEntries(
  READ_KINDS.map((kind) => [kind, kind.startsWith('l2:') ? 60 : 30]),
) as Record<ReadKind, number>;

type Design = 'shared' | 'perIsolate';
type ReadTimes = Record<Design, Record<ReadKind, number[]>>;
interface Phase {
  name: string;
  seconds: number;
  arrange: () => Promise<unknown>;
}

const upstreams = await startUpstreams();
const here = (name: string) => fileURLToPath(new URL(name, import.meta.url).href);
const spawnTs = (script: string) =>
  spawn(process.execPath, ['--import', 'tsx', here(script)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });

// Redis and the Upstash bridge in their own process, as a remote service would be.
const redisProcess = spawnTs('./fleet-redis.ts');
const upstash = await new Promise<{ url: string; token: string }>((resolve) =>
  redisProcess.once('message', (m: { url: string; token: string }) => resolve(m)),
);
/** Runs one command in the Redis process and returns the bridge's command count after it. */
const redisDo = (message: object) =>
  ask<{ commands: number }>(redisProcess, message, 'done').then((answer) => answer.commands);
const env = {
  ...upstreams.env,
  UPSTASH_REDIS_REST_URL: upstash.url,
  UPSTASH_REDIS_REST_TOKEN: upstash.token,
  PUBLIC_BASE_URL: 'https://gas.test',
};

const workers: ChildProcess[] = [];
const ports: number[] = [];
for (let i = 0; i < PROCESSES; i++) {
  const child = spawnTs('./fleet-worker.ts');
  workers.push(child);
  const ready = await ask<{ port: number }>(
    child,
    { type: 'start', env, shared: PER_PROCESS, perIsolate: PER_PROCESS },
    'ready',
  );
  ports.push(ready.port);
}
const urls = ports.map((port) => `http://127.0.0.1:${port}`);

/** Sends a message to a worker and resolves with its first answer of `type`. */
function ask<T>(child: ChildProcess, message: object, type: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (answer: { type: string }) => {
      if (answer.type !== type) return;
      child.off('message', onMessage);
      resolve(answer as T);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/**
 * One request whose instance and endpoint are drawn at random each time it is sent: a fixed list
 * would march every connection through the same pairs in step, piling them onto one busy instance.
 */
function requestsOf(prefix: 's' | 'i') {
  const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)] as T;
  return [
    {
      method: 'GET' as const,
      setupRequest: (request: autocannon.Request) => ({
        ...request,
        path: pick(PATHS),
        headers: { ...request.headers, 'x-instance': `${prefix}${Math.floor(Math.random() * PER_PROCESS)}` },
      }),
    },
  ];
}

function load(prefix: 's' | 'i', seconds: number): Promise<autocannon.Result> {
  return autocannon({
    // autocannon spreads the connections over several URLs; its types only name one.
    url: urls as unknown as string,
    // Enough connections that requests held by a slow Redis (up to 1 s) do not starve the generator.
    connections: 200,
    duration: seconds,
    overallRate: RATE,
    requests: requestsOf(prefix),
  });
}

/** Asks shared instances at random while a phase runs and checks each answer's status and body. */
function sampleBodies(untilMs: number): Promise<{ checked: number; bad: string[] }> {
  const result = { checked: 0, bad: [] as string[] };
  const one = async () => {
    const path = PATHS[Math.floor(Math.random() * 3)]!;
    const url = `${urls[Math.floor(Math.random() * urls.length)]}${path}`;
    const res = await fetch(url, {
      headers: { 'x-instance': `s${Math.floor(Math.random() * PER_PROCESS)}` },
    });
    const body = (await res.json()) as Record<string, unknown>;
    const ok =
      res.status === 200 &&
      (path !== '/api/gas' || /^(stale:)?(rpc-\d+|etherscan)$/.test(String(body.source))) &&
      (path !== '/api/eth-price' || (typeof body.usd === 'number' && body.usd > 0)) &&
      (path !== '/api/l2-gas' ||
        (body.networks as Array<{ gasPriceGwei: number | null }>).every((n) => (n.gasPriceGwei ?? 0) > 0));
    result.checked += 1;
    if (!ok) result.bad.push(`${path} ${res.status} ${JSON.stringify(body).slice(0, 120)}`);
  };
  return (async () => {
    while (Date.now() < untilMs) {
      await one().catch((error) => result.bad.push(String(error)));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return result;
  })();
}

const phases: Phase[] = [
  { name: 'warm-up (cold instances)', seconds: 10, arrange: async () => {} },
  { name: 'steady (Redis healthy)', seconds: 95, arrange: async () => {} },
  { name: 'Redis stopped', seconds: 30, arrange: () => redisDo({ type: 'stop-redis' }) },
  { name: 'Redis back', seconds: 20, arrange: () => redisDo({ type: 'start-redis' }) },
  { name: 'Redis answering after 2 s', seconds: 30, arrange: () => redisDo({ type: 'slow', ms: 2_000 }) },
  { name: 'Redis healthy again', seconds: 20, arrange: () => redisDo({ type: 'slow', ms: null }) },
];

const rows: Array<{
  phase: Phase;
  startedAt: number;
  endedAt: number;
  results: Record<Design, autocannon.Result>;
  commands: number;
  sample: Awaited<ReturnType<typeof sampleBodies>>;
}> = [];
console.log(
  `${PROCESSES} processes x (${PER_PROCESS} shared + ${PER_PROCESS} per-isolate instances), ${RATE} req/s per design, endpoints ${PATHS.join(' ')}`,
);
for (const phase of phases) {
  const seconds = Math.max(5, Math.round(phase.seconds * SCALE));
  await phase.arrange();
  const commandsBefore = await redisDo({ type: 'commands' });
  const startedAt = Date.now();
  const [shared, perIsolate, sample] = await Promise.all([
    load('s', seconds),
    load('i', seconds),
    sampleBodies(startedAt + seconds * 1000),
  ]);
  rows.push({
    phase: { ...phase, seconds },
    startedAt,
    endedAt: Date.now(),
    results: { shared, perIsolate },
    commands: (await redisDo({ type: 'commands' })) - commandsBefore,
    sample,
  });
  console.log(`  ${phase.name}: done (${seconds} s)`);
}

const reports = await Promise.all(
  workers.map((child) => ask<{ readTimes: ReadTimes }>(child, { type: 'report' }, 'report')),
);
const readsOf = (design: Design, kind: ReadKind) => reports.flatMap((r) => r.readTimes[design][kind]);

/** Upstream reads of a kind in consecutive TTL windows of a phase (a last, partial window in brackets). */
function windows(design: Design, kind: ReadKind, from: number, to: number): string {
  const ttl = TTL_S[kind] * 1000;
  const counts: number[] = [];
  for (let start = from; start < to; start += ttl) {
    counts.push(readsOf(design, kind).filter((t) => t >= start && t < Math.min(start + ttl, to)).length);
  }
  const partial = (to - from) % ttl !== 0 && counts.length > 1 ? counts.pop() : undefined;
  return `${counts.join(' ')}${partial === undefined ? '' : ` (${partial})`}`;
}

const fmt = (r: autocannon.Result) =>
  `${Math.round(r.requests.average).toString().padStart(5)} req/s  p50 ${String(r.latency.p50).padStart(4)} ms  p99 ${String(r.latency.p99).padStart(5)} ms  non-2xx ${r.non2xx}  errors ${r.errors + r.timeouts}`;
for (const { phase, startedAt, endedAt, results, commands, sample } of rows) {
  console.log(`\n--- ${phase.name} (${phase.seconds} s) ---`);
  console.log(`shared Redis design : ${fmt(results.shared)}`);
  console.log(`per-isolate design  : ${fmt(results.perIsolate)}`);
  const served = results.shared.requests.total;
  console.log(
    `Redis commands      : ${commands} for ${served} requests = ${(commands / Math.max(1, served)).toFixed(4)} per request`,
  );
  console.log(
    `bodies checked      : ${sample.checked}, wrong ${sample.bad.length}${sample.bad.length ? `: ${sample.bad.slice(0, 3).join(' | ')}` : ''}`,
  );
  console.log('upstream reads per TTL window (shared design | per-isolate design):');
  for (const kind of READ_KINDS) {
    console.log(
      `  ${kind.padEnd(12)} TTL ${TTL_S[kind]} s: ${windows('shared', kind, startedAt, endedAt).padEnd(16)} | ${windows('perIsolate', kind, startedAt, endedAt)}`,
    );
  }
}

for (const child of workers) child.send({ type: 'stop' });
redisProcess.send({ type: 'close' });
await upstreams.close();
process.exit(0);
