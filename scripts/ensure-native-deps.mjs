// Runs before `npm test`. npm skips an optional native package whose `engines` asks for a newer Node
// than the one npm itself ran on (the system Node 20), e.g. Hardhat EDR's binary (Node >= 22). Here
// we run on the project's pinned Node 24, so one more `npm install` fetches what was skipped.
import { execSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
try {
  require('@nomicfoundation/edr');
} catch {
  console.log(
    `installing native packages skipped under an older Node (now on Node ${process.versions.node})`,
  );
  execSync('npm install --no-audit --no-fund', { stdio: 'inherit' });
}
