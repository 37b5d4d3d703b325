// `npm start` as a real process (the prebuilt bundle on plain Node): it serves, logs one line per
// request (in batches, none lost at shutdown), and exits 0 on SIGINT/SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../../lib/mcp/tools';
import { DATA_DIR_LOCK_FILE } from '../../lib/store/data-dir-lock';
import { findFreePort } from '../helpers/free-port';
import { expectNoLeaks, startUpstreams, type Upstreams } from '../upstreams';

let up: Upstreams;
beforeAll(async () => {
  up = await startUpstreams();
});
afterAll(async () => {
  await up?.close();
});

/** Resolves with the output once `pattern` appears on stdout; rejects if the process exits first. */
function waitForOutput(child: ChildProcess, output: () => string, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pattern.test(output())) {
        child.stdout?.off('data', check);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    // The output may already hold it (lines arrive in batches).
    check();
    child.once('exit', (code) => reject(new Error(`exited with ${code} before ${pattern}: ${output()}`)));
  });
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url).href);

/** Runs `npm run history:import` (tsx scripts/history-import.ts) on a one-row CSV against `dataDir`. */
function runImport(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const csv = join(dataDir, '..', `${basename(dataDir)}-import.csv`);
  writeFileSync(csv, `timestamp_utc,base_fee_gwei\n${new Date().toISOString()},0.05\n`);
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
      'scripts/history-import.ts',
      csv,
      '--value-column',
      'base_fee_gwei',
    ],
    { cwd: ROOT, env: { PATH: process.env.PATH, DATA_DIR: dataDir } },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) =>
    child.on('close', (code) => {
      rmSync(csv, { force: true });
      done({ code, stderr });
    }),
  );
}

describe('npm start as a process', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'serves, then shuts down cleanly on %s',
    { timeout: 60_000 },
    async (signal) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'gas-node-process-'));
      const port = await findFreePort();
      const child = spawn('npm', ['start', '--silent'], {
        env: { ...process.env, ...up.env, PORT: String(port), DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      try {
        await waitForOutput(child, () => out, /info listening/);
        const res = await fetch(`http://127.0.0.1:${port}/api/gas`);
        expect(res.status).toBe(200);
        await waitForOutput(child, () => out, /GET \/api\/gas 200 \d+ms/);
        // An import into the same PGlite directory is refused while the host has it open.
        const sideways = await runImport(dataDir);
        expect(sideways.code).toBe(1);
        expect(sideways.stderr).toMatch(/is open in process \d+ \(npm start/);
        // MCP through the official client: the bundle's stand-ins for zod's locales, Zod 3 and Ajv
        // (wrangler.toml [alias]) are never reached, and bad input still gets its message.
        const mcp = new Client({ name: 'node-process-test', version: '1.0.0' });
        await mcp.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`)));
        expect((await mcp.listTools()).tools.map((t) => t.name)).toEqual(TOOL_NAMES);
        const gas = await mcp.callTool({ name: 'get_current_gas', arguments: {} });
        expect(gas.isError, JSON.stringify(gas.content)).toBeFalsy();
        const bad = await mcp.callTool({ name: 'get_l2_gas', arguments: { network: 'zksync' } });
        expect(bad.isError).toBe(true);
        expect(JSON.stringify(bad.content)).toContain('network must be one of');
        const badCost = await mcp.callTool({ name: 'estimate_transaction_cost', arguments: { gasLimit: 0 } });
        expect(JSON.stringify(badCost.content)).toContain('gasLimit must be at least 21,000');
        await mcp.close();
        // The first scheduler tick (snapshot and hourly forecast, with PGlite on the event loop) runs at
        // start-up; the burst and the signal come after it, so they meet a serving process.
        await waitForOutput(child, () => out, /info scheduled run/);
        // A burst, then the signal at once: every request's line is written before the process ends.
        const burst = await Promise.all(
          Array.from({ length: 300 }, (_, i) => fetch(`http://127.0.0.1:${port}/api/gas?n=${i}`)),
        );
        expect(burst.every((r) => r.status === 200)).toBe(true);
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill(signal);
        expect(await exited).toBe(0);
        // The directory is free again once the host has closed its database.
        expect(existsSync(join(dataDir, DATA_DIR_LOCK_FILE))).toBe(false);
        expect(out).toContain(`"signal":"${signal}"`);
        expect(out.match(/GET \/api\/gas 200 \d+ms/g)).toHaveLength(301);
        expectNoLeaks(up, out);
      } finally {
        child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('loses no line at shutdown when the log reader lags behind', { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gas-node-process-'));
    const port = await findFreePort();
    // npm start's own command without npm: npm exits on SIGTERM before the server, and Node resumes a
    // paused pipe when its child exits, so only the server itself shows whether it waits for its log.
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts
      .start;
    const child = spawn('sh', ['-c', start], {
      env: {
        ...process.env,
        ...up.env,
        PATH: `${resolve('node_modules/.bin')}${delimiter}${process.env.PATH}`,
        PORT: String(port),
        DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    try {
      await waitForOutput(child, () => out, /info scheduled run/);
      // The reader stops: the pipe and this side's buffer fill, and the host queues the rest in-process.
      child.stdout?.pause();
      const requests = 10_000;
      for (let i = 0; i < requests; i += 100) {
        const batch = await Promise.all(
          Array.from({ length: 100 }, (_, j) => fetch(`http://127.0.0.1:${port}/api/gas?n=${i + j}`)),
        );
        expect(batch.every((r) => r.status === 200)).toBe(true);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      // The host waits for its queue to leave before it exits; the reader comes back a little later.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(child.exitCode).toBe(null);
      child.stdout?.resume();
      expect(await exited).toBe(0);
      expect(out).toContain('"signal":"SIGTERM"');
      expect(out.match(/GET \/api\/gas 200 \d+ms/g)).toHaveLength(requests);
      expect(out).not.toMatch(/log lines dropped/);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
