// `npx tsx bench/eth-price.ts`: GET /api/eth-price answer time against the price simulators, each request
// on a fresh app instance (cold cache, no back-off) with the default UPSTREAM_TIMEOUT_MS, so every answer
// runs the fallback chain: healthy; the aggregator refusing connections; the aggregator hung; every
// source hung (must stay within PRICE_DEADLINE_MS); every source hung with a hung last-good store too.
import { createApp } from '../functions/app';
import type { AppDeps } from '../lib/deps';
import { PRICE_DEADLINE_MS } from '../lib/services/eth-price';
import { createFaultyStore, createTestDeps } from '../test/helpers/deps';
import { startCoinbaseSim } from '../test/upstreams/coinbase-sim';
import { startCoinGeckoSim } from '../test/upstreams/coingecko-sim';
import { startKrakenSim } from '../test/upstreams/kraken-sim';
import type { Sim } from '../test/upstreams/sim';

interface Scenario {
  name: string;
  runs: number;
  arrange: () => Promise<unknown>;
  deps?: Partial<AppDeps>;
}

const hungStore = createFaultyStore('hang');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const now = Date.now;
  const [coingecko, coinbase, kraken] = await Promise.all([
    startCoinGeckoSim({ now }),
    startCoinbaseSim({ now }),
    startKrakenSim({ now }),
  ]);
  const sims: Sim[] = [coingecko, coinbase, kraken];
  const env = {
    COINGECKO_API_URL: coingecko.url,
    COINBASE_API_URL: coinbase.url,
    KRAKEN_API_URL: kraken.url,
  };
  const scenarios: Scenario[] = [
    { name: 'healthy', runs: 40, arrange: async () => {} },
    { name: 'aggregator refusing', runs: 40, arrange: () => coingecko.fault('refuse') },
    { name: 'aggregator hung', runs: 3, arrange: () => coingecko.fault('hang') },
    { name: 'every source hung', runs: 3, arrange: () => Promise.all(sims.map((sim) => sim.fault('hang'))) },
    {
      name: 'every source + store hung',
      runs: 3,
      arrange: () => Promise.all(sims.map((sim) => sim.fault('hang'))),
      deps: { lastGood: hungStore },
    },
  ];
  const rows: string[][] = [];
  try {
    for (const scenario of scenarios) {
      await Promise.all(sims.map((sim) => sim.reset()));
      await scenario.arrange();
      const samples: number[] = [];
      const labels = new Set<string>();
      for (let i = 0; i < scenario.runs + 2; i++) {
        const app = createApp(createTestDeps(env, scenario.deps));
        const started = performance.now();
        const res = await app.request('/api/eth-price');
        const body = (await res.json()) as { source: string };
        const elapsed = performance.now() - started;
        if (res.status !== 200) throw new Error(`${scenario.name}: HTTP ${res.status}`);
        labels.add(body.source);
        if (i >= 2) samples.push(elapsed); // the first two warm up the module and connection pools
      }
      samples.sort((a, b) => a - b);
      rows.push([
        scenario.name,
        String(samples.length),
        percentile(samples, 0.5).toFixed(1),
        percentile(samples, 0.95).toFixed(1),
        (samples.at(-1) ?? Number.NaN).toFixed(1),
        [...labels].join(','),
      ]);
    }
  } finally {
    await Promise.all(sims.map((sim) => sim.close()));
  }
  const header = ['scenario', 'runs', 'median ms', 'p95 ms', 'max ms', 'source label'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(`GET /api/eth-price, cold instance per request, documented deadline ${PRICE_DEADLINE_MS} ms`);
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
