// Starts every upstream simulator and prints the environment (KEY=value lines) that points the app at
// them; runs until SIGINT/SIGTERM. Usage: tsx test/upstreams/serve.ts [--base-port N] [--no-etherscan-key]
import { parseArgs } from 'node:util';
import { startUpstreams } from './index';

const { values } = parseArgs({
  options: {
    'base-port': { type: 'string' },
    'no-etherscan-key': { type: 'boolean', default: false },
  },
});

const basePort = values['base-port'] === undefined ? undefined : Number(values['base-port']);
if (basePort !== undefined && !(Number.isInteger(basePort) && basePort > 0 && basePort < 65_521)) {
  console.error('--base-port must be a port number with room for 15 consecutive ports');
  process.exit(2);
}

const upstreams = await startUpstreams({
  ...(basePort === undefined ? {} : { basePort }),
  ...(values['no-etherscan-key'] ? { etherscanApiKey: null } : {}),
});
for (const [key, value] of Object.entries(upstreams.env)) console.log(`${key}=${value}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await upstreams.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
