/**
 * Benchmark of mainnet gas reads against the local simulators: time to answer with a healthy primary,
 * a hung primary and a refusing primary (hedged pool, fresh per-process state every run so each run
 * pays the hedge rather than profiting from cooldown), the hung primary once the pool has cooled it
 * down, and viem's default `fallback` transport given the same hung primary; then the upstream
 * requests of one refresh before and after the wallet-grade fields (mainnet-gas-requests.ts). Prints
 * figures; asserts nothing. Run: npx tsx bench/mainnet-gas.ts [runs]
 */
import { createPublicClient, fallback, http } from 'viem';
import type { AppDeps } from '../lib/deps';
import { createLogger } from '../lib/log';
import { readMainnetGasFromRpc } from '../lib/upstream/rpc-mainnet-gas';
import { DEFAULT_HEDGE_DELAY_MS } from '../lib/upstream/rpc-pool';
import { createTestDeps } from '../test/helpers/deps';
import { startUpstreams } from '../test/upstreams';
import { benchRequestsPerRefresh } from './mainnet-gas-requests';

const RUNS = Number(process.argv[2] ?? 30);
const FALLBACK_RUNS = Math.min(RUNS, 3);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function time(
  runs: number,
  fn: () => Promise<unknown>,
): Promise<{ median: number; p95: number; runs: number }> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { median: percentile(samples, 50), p95: percentile(samples, 95), runs };
}

const upstreams = await startUpstreams();
const quiet = createLogger(() => {});
const freshDeps = (): AppDeps => ({ ...createTestDeps(upstreams.env), log: quiet });
const readFresh = async () => {
  const reading = await readMainnetGasFromRpc(freshDeps());
  if (!reading.source) throw new Error('no source');
};
const primary = upstreams.mainnet[0];
if (!primary) throw new Error('no simulated primary');

const rows: [string, Awaited<ReturnType<typeof time>>][] = [];
rows.push(['healthy primary (hedged pool)', await time(RUNS, readFresh)]);

await primary.fault('hang');
rows.push(['hung primary (hedged pool, fresh state)', await time(RUNS, readFresh)]);
const shared = freshDeps();
await readMainnetGasFromRpc(shared);
await readMainnetGasFromRpc(shared);
rows.push([
  'hung primary (hedged pool, after cooldown)',
  await time(RUNS, () => readMainnetGasFromRpc(shared)),
]);

const viemFallback = createPublicClient({
  transport: fallback(upstreams.mainnet.map((sim) => http(sim.url))),
});
rows.push([
  'hung primary (viem fallback, defaults)',
  await time(FALLBACK_RUNS, () =>
    Promise.all([
      viemFallback.getFeeHistory({ blockCount: 20, blockTag: 'latest', rewardPercentiles: [70, 90, 99] }),
      viemFallback.getBlock({ blockTag: 'latest' }),
    ]),
  ),
]);
await upstreams.reset();

await primary.fault('refuse');
rows.push(['refusing primary (hedged pool)', await time(RUNS, readFresh)]);
await upstreams.reset();

const pad = (text: string, width: number) => text.padEnd(width);
const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(11);
console.log(
  `hedge delay ${DEFAULT_HEDGE_DELAY_MS} ms, per-attempt timeout ${freshDeps().config.upstreamTimeoutMs} ms`,
);
console.log(`${pad('scenario', 44)}${'runs'.padStart(5)}${'median'.padStart(11)}${'p95'.padStart(11)}`);
for (const [name, r] of rows)
  console.log(`${pad(name, 44)}${String(r.runs).padStart(5)}${ms(r.median)}${ms(r.p95)}`);
const healthy = rows[0]?.[1].median ?? 0;
const hung = rows[1]?.[1].median ?? 0;
const viem = rows[3]?.[1].median ?? 0;
console.log(
  `hung - healthy = ${(hung - healthy).toFixed(1)} ms (target <= ${DEFAULT_HEDGE_DELAY_MS + 50}); ` +
    `viem fallback / hedged = ${(viem / hung).toFixed(1)}x (target >= 5x)`,
);
await benchRequestsPerRefresh(upstreams, freshDeps);
await upstreams.close();
