// `npm run bench -- worker-startup`: builds the Worker bundle as `npm run deploy` would (wrangler,
// dry run: the same aliases and minification), then runs it in workerd ROUNDS times, each a fresh
// process, side by side with a one-line Worker: the time from start to the first answer of
// GET /openapi.json, and the difference, which is what the bundle itself costs (parse, top-level
// evaluation, the first request). Also checks that the bundle's /openapi.json is byte for byte the
// document the Node app generates.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createApp } from '../functions/app';
import { createTestDeps } from '../test/helpers/deps';
import { findFreePort } from '../test/helpers/free-port';

const ROUNDS = 5;
const BASE = 'https://gas.test';
const WORKERD = join('node_modules', 'workerd', 'bin', 'workerd');

/** A workerd configuration serving one ES module with the app's compatibility settings and an empty edge cache. */
function capnp(port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker), (name = "cache", worker = .cache) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "index.js", esModule = embed "index.js") ],
  compatibilityDate = "2026-08-01",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [ (name = "PUBLIC_BASE_URL", text = "${BASE}") ],
  cacheApiOutbound = "cache",
);
# The edge cache, always empty: every request reaches the app.
const cache :Workerd.Worker = (
  modules = [ (name = "cache.js", esModule = "export default { fetch: (r) => new Response(null, { status: r.method === 'GET' ? 504 : 204 }) };") ],
  compatibilityDate = "2026-08-01",
);
`;
}

/**
 * Starts workerd on `dir/index.js`: the time to its first answer (GET /nope, a 404 through the whole
 * app: the isolate's start-up), then one GET /openapi.json (generated on first use) and one MCP
 * `tools/list` on the running isolate.
 */
async function runOnce(dir: string) {
  const port = await findFreePort();
  writeFileSync(join(dir, 'config.capnp'), capnp(port));
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(WORKERD, ['serve', join(dir, 'config.capnp')], { stdio: 'ignore' });
  try {
    for (;;) {
      try {
        await (await fetch(`${base}/nope`)).arrayBuffer();
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 2));
      }
    }
    const startMs = performance.now() - started;
    const docStarted = performance.now();
    const body = Buffer.from(await (await fetch(`${base}/openapi.json`)).arrayBuffer());
    const docMs = performance.now() - docStarted;
    const mcp = await fetch(`${base}/api/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }).then((r) => r.text());
    return { startMs, docMs, body, mcp };
  } finally {
    child.kill('SIGKILL');
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const bundleDir = mkdtempSync(join(tmpdir(), 'gas-worker-bundle-'));
  const helloDir = mkdtempSync(join(tmpdir(), 'gas-worker-hello-'));
  const built = spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', bundleDir], {
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`wrangler build failed: ${built.stderr}`);
  const script = readFileSync(join(bundleDir, 'index.js'));
  console.log(
    `bundle: ${(script.length / 1024).toFixed(0)} KiB raw, ${(gzipSync(script).length / 1024).toFixed(1)} KiB gzip`,
  );
  writeFileSync(join(helloDir, 'index.js'), 'export default { fetch: () => new Response("{}") };');

  const hello: number[] = [];
  const start: number[] = [];
  const doc: number[] = [];
  let last: Awaited<ReturnType<typeof runOnce>> | undefined;
  for (let i = 0; i < ROUNDS; i++) {
    hello.push((await runOnce(helloDir)).startMs);
    last = await runOnce(bundleDir);
    start.push(last.startMs);
    doc.push(last.docMs);
  }
  console.log(`workerd, median of ${ROUNDS} fresh processes, start to the first answer (GET /nope, a 404):`);
  console.log(`  one-line Worker ${median(hello).toFixed(0)} ms, this Worker ${median(start).toFixed(0)} ms`);
  console.log(
    `  the bundle's own start-up (parse, top level, app creation, one request): ${(median(start) - median(hello)).toFixed(0)} ms`,
  );
  console.log(
    `  then the first GET /openapi.json (generated once per isolate): ${median(doc).toFixed(0)} ms`,
  );
  const tools =
    (JSON.parse(last?.mcp ?? '{}') as { result?: { tools?: unknown[] } }).result?.tools?.length ?? 0;
  console.log(`MCP tools/list from the bundle: ${tools} tools`);
  const served = last?.body ?? Buffer.alloc(0);
  const node = await createApp(createTestDeps({ PUBLIC_BASE_URL: BASE })).request(`${BASE}/openapi.json`);
  const expected = Buffer.from(await node.arrayBuffer());
  const same = expected.equals(served);
  console.log(
    `/openapi.json from the bundle in workerd and from the Node app: ${same ? 'identical bytes' : 'DIFFERENT'}`,
  );
  if (!same) {
    writeFileSync(join(tmpdir(), 'openapi-worker.json'), served);
    writeFileSync(join(tmpdir(), 'openapi-node.json'), expected);
    console.log(`  both written to ${tmpdir()}/openapi-{worker,node}.json`);
  }
  rmSync(bundleDir, { recursive: true, force: true });
  rmSync(helloDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
