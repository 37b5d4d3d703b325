// `npm start` as a real process: it serves, logs one line per request, and exits 0 on SIGINT/SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    child.once('exit', (code) => reject(new Error(`exited with ${code} before ${pattern}: ${output()}`)));
  });
}

describe('npm start as a process', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'serves, then shuts down cleanly on %s',
    { timeout: 60_000 },
    async (signal) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'gas-node-process-'));
      const port = await findFreePort();
      const child = spawn(join('node_modules', '.bin', 'tsx'), ['lib/node/main.ts'], {
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
        // The first scheduler tick (snapshot and hourly forecast, with PGlite on the event loop) runs at
        // start-up. tsx relays a signal only if the child acknowledges it within 30 ms and otherwise
        // kills it; the tick can hold the event loop longer than that, so the signal is sent after it.
        await waitForOutput(child, () => out, /info scheduled run/);
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill(signal);
        expect(await exited).toBe(0);
        expect(out).toContain(`"signal":"${signal}"`);
        expectNoLeaks(up, out);
      } finally {
        child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
