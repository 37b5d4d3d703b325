// `npm run bench`: runs every benchmark, one after another so they do not share the CPU, and prints
// their figures. Benchmarks print; they assert nothing. `npm run bench -- NAME` runs one of them.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCHMARKS = [
  'mainnet-gas',
  'eth-price',
  'gas-history',
  'forecast',
  'forecast-accuracy',
  'throughput',
  'worker-startup',
  'fleet',
];
const only = process.argv[2];
const chosen = only ? BENCHMARKS.filter((name) => name === only) : BENCHMARKS;
if (chosen.length === 0) {
  console.error(`unknown benchmark "${only}"; choose one of ${BENCHMARKS.join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const name of chosen) {
  console.log(`\n=== ${name} ===`);
  const script = join(dirname(fileURLToPath(import.meta.url)), `${name}.ts`);
  // Options after the name go to the benchmark (`npm run bench -- throughput --soak 10`).
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...process.argv.slice(3)], {
    stdio: 'inherit',
  });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
