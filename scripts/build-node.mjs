// Builds the Node host into one JavaScript file (`dist-node/main.mjs`) so that `npm start` runs
// prebuilt code on plain Node: no TypeScript loader and no loader process, and the modules resolved
// once at build time instead of at every start. PGlite stays outside the bundle: it finds its
// WebAssembly and data files next to its own module in node_modules.
// `--if-stale` builds only when a source is newer than the bundle (what `npm start` runs each time).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const OUTFILE = 'dist-node/main.mjs';
const SOURCES = ['lib', 'functions', 'cron', 'drizzle', 'package-lock.json', 'scripts/build-node.mjs'];

/** Newest modification time under the given paths. */
function newestMtime(paths) {
  let newest = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const stat = statSync(path);
    if (stat.isDirectory())
      newest = Math.max(newest, newestMtime(readdirSync(path).map((n) => join(path, n))));
    else newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

if (
  process.argv.includes('--if-stale') &&
  existsSync(OUTFILE) &&
  statSync(OUTFILE).mtimeMs >= newestMtime(SOURCES)
) {
  process.exit(0);
}
const started = performance.now();
const { build } = await import('esbuild');
await build({
  entryPoints: ['lib/node/main.ts'],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  external: ['@electric-sql/pglite', 'pg-native'],
  // Bundled CommonJS packages (pg, ws) call require(); give the ES module one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
  legalComments: 'none',
});
console.error(`built ${OUTFILE} in ${(performance.now() - started).toFixed(0)} ms`);
