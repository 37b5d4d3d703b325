// Builds the Node host into one JavaScript file (`dist-node/main.mjs`) so that `npm start` runs
// prebuilt code on plain Node: no TypeScript loader and no loader process, and the modules resolved
// once at build time instead of at every start. PGlite stays outside the bundle: it finds its
// WebAssembly and data files next to its own module in node_modules.
// Run as a script it always builds (`npm install`'s prepare); `scripts/start.mjs` imports it to build
// only when the bundle is missing or a source is newer.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root: the directory above this script's. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const OUTFILE = 'dist-node/main.mjs';
const SOURCES = [
  'lib',
  'functions',
  'cron',
  'drizzle',
  'worker-shims',
  'wrangler.toml',
  'package-lock.json',
  'scripts/build-node.mjs',
];

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

/** Whether the bundle under `root` is missing or older than one of its sources. */
export function bundleIsStale(root = PROJECT_ROOT) {
  const outfile = join(root, OUTFILE);
  return !existsSync(outfile) || statSync(outfile).mtimeMs < newestMtime(SOURCES.map((s) => join(root, s)));
}

/**
 * The Worker's `[alias]` table of wrangler.toml (`"package" = "./worker-shims/…"`, one per line), as
 * an esbuild plugin: the same stand-ins for what the service never runs (zod's locales, the MCP SDK's
 * Zod 3 support and Ajv; see worker-shims/unsupported.mjs) keep about 600 KB out of the Node host's
 * bundle too, which Node then compiles and runs at every start. Exact package names only, as
 * wrangler's aliases are (`zod/v4` stays zod's own). A line of the table this cannot read stops the
 * build, so the two bundles never differ silently (a unit test compares it with wrangler's reading).
 */
export function workerAliases(root = PROJECT_ROOT) {
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
  const table = toml.split(/^\[alias\]\s*$/m)[1]?.split(/^\[/m)[0] ?? '';
  const aliases = {};
  for (const line of table.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const entry = /^"([^"]+)"\s*=\s*"([^"]+)"$/.exec(line);
    if (!entry)
      throw new Error(`wrangler.toml [alias]: cannot read ${JSON.stringify(line)}; write "package" = "path"`);
    aliases[entry[1]] = join(root, entry[2]);
  }
  if (Object.keys(aliases).length === 0) throw new Error('wrangler.toml has no [alias] entries');
  return aliases;
}

function aliasPlugin(aliases) {
  const names = Object.keys(aliases).map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return {
    name: 'worker-aliases',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (args) => ({
        path: aliases[args.path],
      }));
    },
  };
}

/** Bundles the host into OUTFILE under the project's root, whatever the working directory. */
export async function buildNode() {
  const started = performance.now();
  const esbuild = await import('esbuild');
  try {
    await esbuild.build({
      absWorkingDir: PROJECT_ROOT,
      entryPoints: ['lib/node/main.ts'],
      outfile: OUTFILE,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      external: ['@electric-sql/pglite', 'pg-native'],
      plugins: [aliasPlugin(workerAliases())],
      // Bundled CommonJS packages (pg, ws) call require(); give the ES module one.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      // Whitespace, comments and syntax minified (identifiers kept, so stack traces stay readable):
      // 2.3 MB instead of 3.3 (1.4 MB with the aliases above and the bare viem client of
      // lib/upstream/rpc-pool.ts), and pure ASCII (some packages' comments are not), so V8 holds the
      // source in one byte a character and compiles it about 50 ms sooner at every start.
      minifyWhitespace: true,
      minifySyntax: true,
      charset: 'ascii',
      logLevel: 'warning',
      legalComments: 'none',
    });
  } finally {
    // The build service is a child process: stop it, so that a start that rebuilt leaves none behind.
    await esbuild.stop();
  }
  console.error(`built ${OUTFILE} in ${(performance.now() - started).toFixed(0)} ms`);
}

/** Whether Node runs this file as its script (argv[1] as typed may pass through a symbolic link). */
function runAsScript() {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (runAsScript()) await buildNode();
