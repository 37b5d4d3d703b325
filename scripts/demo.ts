// `npm run demo`: starts the local upstream simulators and the Node host pointed at them, with an
// in-memory database, so the service can be seen answering with no network access. Numbers come from
// the simulators (real 2023 mainnet blocks replayed with a live head), not from mainnet today; with
// `--sub-gwei`, today's chain: the simulated mainnet at January 2026's sub-gwei fees, and the store
// seeded with eight days of that month's real hourly base fees, so the chart and advice show at once.
import { parseArgs } from 'node:util';
import { createLogger } from '../lib/log';
import { startNodeHost } from '../lib/node/host';
import { openDatabase } from '../lib/store/engines';
import { seedRealHistory } from '../test/helpers/seed-history';
import { startUpstreams } from '../test/upstreams';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '8787' },
    'sub-gwei': { type: 'boolean', default: false },
  },
});
const log = createLogger();
const regime = values['sub-gwei'] ? 'sub-gwei-2026' : undefined;
const upstreams = await startUpstreams({ mainnetRegime: regime });
const engine = await openDatabase({ kind: 'pglite' });
await engine.migrate();
if (regime) await seedRealHistory(engine, Date.now(), { regime });
const host = await startNodeHost(
  { ...upstreams.env, PORT: values.port },
  { log, deps: { withDb: engine.withDb } },
);
const base = `http://localhost:${host.port}`;
console.log(`
Demo: the API is answering from local simulators of every upstream (RPC providers, Etherscan,
CoinGecko, Coinbase, Kraken). ${
  regime
    ? 'Mainnet runs at sub-gwei fees, with eight days of real January 2026 history.'
    : 'History fills as the scheduler writes a snapshot every 90 seconds.'
}
Open ${base}/ (live dashboard) and ${base}/docs (API reference), or try:
  curl ${base}/api/gas
  curl ${base}/api/dashboard
  curl ${base}/api/l2-gas
  curl ${base}/api/eth-price
  curl '${base}/api/gas-history?range=1d'
  curl ${base}/openapi.json
Stop with Ctrl-C.
`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await host.close();
  await engine.close();
  await upstreams.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
