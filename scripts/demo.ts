// `npm run demo`: starts the local upstream simulators and the Node host pointed at them, with an
// in-memory database, so the service can be seen answering with no network access. Numbers come from
// the simulators (real 2023 mainnet blocks replayed with a live head), not from mainnet today.
import { parseArgs } from 'node:util';
import { createLogger } from '../lib/log';
import { startNodeHost } from '../lib/node/host';
import { openDatabase } from '../lib/store/engines';
import { startUpstreams } from '../test/upstreams';

const { values } = parseArgs({ options: { port: { type: 'string', default: process.env.PORT ?? '8787' } } });
const log = createLogger();
const upstreams = await startUpstreams();
const engine = await openDatabase({ kind: 'pglite' });
await engine.migrate();
const host = await startNodeHost(
  { ...upstreams.env, PORT: values.port },
  { log, deps: { withDb: engine.withDb } },
);
const base = `http://localhost:${host.port}`;
console.log(`
Demo: the API is answering from local simulators of every upstream (RPC providers, Etherscan,
CoinGecko, Coinbase, Kraken). History fills as the scheduler writes a snapshot every 90 seconds.
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
