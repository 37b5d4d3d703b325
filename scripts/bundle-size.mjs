// Prints the size of the dry-run Worker bundle (`npm run build`), raw and gzipped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = process.argv[2] ?? 'dist';
const files = readdirSync(dir).filter((name) => /\.(m?js|wasm)$/.test(name));
let raw = 0;
let gzip = 0;
for (const name of files) {
  const bytes = readFileSync(join(dir, name));
  raw += statSync(join(dir, name)).size;
  gzip += gzipSync(bytes).length;
  console.log(`${name}: ${(bytes.length / 1024).toFixed(1)} KiB`);
}
console.log(
  `bundle: ${(raw / 1024).toFixed(1)} KiB raw, ${(gzip / 1024).toFixed(1)} KiB gzip (Workers free plan limit: 3 MiB gzip)`,
);
