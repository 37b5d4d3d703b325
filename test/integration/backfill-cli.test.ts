import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoLeaks, startUpstreams, type Upstreams } from '../upstreams';

const ROOT = fileURLToPath(new URL('../..', import.meta.url).href);
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

let up: Upstreams;
let dataDir: string;

beforeAll(async () => {
  up = await startUpstreams();
  dataDir = mkdtempSync(join(tmpdir(), 'gas-backfill-'));
});
afterAll(async () => {
  await up?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `npm run backfill -- ARGS` as the lead's script does (tsx scripts/backfill.ts), asynchronously so the simulators in this process keep answering. */
function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [TSX, 'scripts/backfill.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...up.env, DATA_DIR: dataDir },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run backfill', () => {
  it('fills the embedded database with a progress bar and a summary, then finds nothing to do', {
    timeout: 60_000,
  }, async () => {
    const first = await runCli(['--days', '1']);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`[${'#'.repeat(30)}] 100% 960/960 slots`);
    expect(first.stdout).toContain('slots missing at start: 960 (already stored: 0)');
    expect(first.stdout).toMatch(/written: 960, stored meanwhile by another writer: 0/);
    expect(first.stdout).toContain('rpc-1');

    const again = await runCli(['--days', '1']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/slots missing at start: \d+ \(already stored: 9\d\d\)/);
    expect(again.stdout).toMatch(/written: [01],/);
    for (const output of [first, again]) expectNoLeaks(up, output.stdout, output.stderr);
  });

  it('refuses a window beyond the 35-day retention with its usage line', { timeout: 30_000 }, async () => {
    const result = await runCli(['--days', '40']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('usage: npm run backfill -- --days N');
  });
});
