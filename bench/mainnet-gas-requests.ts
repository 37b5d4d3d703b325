/**
 * Side by side: what one mainnet refresh costs upstream before issue 14 (the seed's reading:
 * `eth_feeHistory(20, latest, [70, 90, 99])` and the latest block as two single JSON-RPC requests) and
 * after it (the wallet-grade reading: fee history with the wait model's percentile and blob fields,
 * the latest block and `eth_blobBaseFee` in one batch), on a provider that batches, on one that
 * refuses batches, and with 80 ms of latency per HTTP request. HTTP requests are counted at the
 * simulated provider; the chain-id check (once per provider per process) is paid before measuring.
 */
import { createPublicClient, http } from 'viem';
import type { AppDeps } from '../lib/deps';
import type { FeeHistory } from '../lib/oracle/fee-history';
import { computeTiers } from '../lib/oracle/tiers';
import { readMainnetGasFromRpc } from '../lib/upstream/rpc-mainnet-gas';
import type { Upstreams } from '../test/upstreams';

const RUNS = 30;

interface Figures {
  requests: number;
  calls: number;
  medianMs: number;
}

async function measure(upstreams: Upstreams, refresh: () => Promise<unknown>): Promise<Figures> {
  const primary = upstreams.mainnet[0];
  if (!primary) throw new Error('no simulated primary');
  await refresh();
  const before = { requests: primary.requests.total, calls: sumCalls(primary.requests.byMethod) };
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    await refresh();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return {
    requests: (primary.requests.total - before.requests) / RUNS,
    calls: (sumCalls(primary.requests.byMethod) - before.calls) / RUNS,
    medianMs: samples[Math.floor(samples.length / 2)] ?? Number.NaN,
  };
}

function sumCalls(byMethod: Record<string, number>): number {
  return Object.values(byMethod).reduce((sum, n) => sum + n, 0);
}

/** Prints requests and JSON-RPC calls per refresh and the refresh time, seed reading against this one. */
export async function benchRequestsPerRefresh(upstreams: Upstreams, deps: () => AppDeps): Promise<void> {
  const primary = upstreams.mainnet[0];
  if (!primary) throw new Error('no simulated primary');
  const seedClient = createPublicClient({ transport: http(primary.url, { retryCount: 0 }) });
  const seedRefresh = async () => {
    const [history] = await Promise.all([
      seedClient.getFeeHistory({ blockCount: 20, blockTag: 'latest', rewardPercentiles: [70, 90, 99] }),
      seedClient.getBlock({ blockTag: 'latest' }),
    ]);
    return computeTiers(history as FeeHistory);
  };
  const shared = deps();
  const newRefresh = () => readMainnetGasFromRpc(shared);
  const rows: [string, Figures, Figures][] = [];
  rows.push([
    'batching provider',
    await measure(upstreams, seedRefresh),
    await measure(upstreams, newRefresh),
  ]);
  await primary.fault('delay', { ms: 80 });
  rows.push([
    'batching provider, 80 ms a request',
    await measure(upstreams, seedRefresh),
    await measure(upstreams, newRefresh),
  ]);
  await upstreams.reset();
  await primary.fault('no-batch');
  const refusing = deps();
  rows.push([
    'provider refusing batches',
    await measure(upstreams, seedRefresh),
    await measure(upstreams, () => readMainnetGasFromRpc(refusing)),
  ]);
  await upstreams.reset();

  console.log(
    `\nupstream cost of one refresh at the primary provider, before (seed) and after (wallet-grade ` +
      `fields); time is the median of ${RUNS}`,
  );
  const head = ['HTTP req before', 'after', 'RPC calls before', 'after', 'time before', 'after'];
  console.log('scenario'.padEnd(36) + head.map((h) => h.padStart(18)).join(''));
  for (const [name, before, after] of rows) {
    const cells = [
      before.requests.toFixed(1),
      after.requests.toFixed(1),
      before.calls.toFixed(1),
      after.calls.toFixed(1),
      `${before.medianMs.toFixed(1)} ms`,
      `${after.medianMs.toFixed(1)} ms`,
    ];
    console.log(name.padEnd(36) + cells.map((c) => c.padStart(18)).join(''));
  }
}
