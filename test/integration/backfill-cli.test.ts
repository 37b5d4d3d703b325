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
function runCli(
  args: string[],
  env: Record<string, string> = {},
  script = 'scripts/backfill.ts',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [TSX, script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...up.env, DATA_DIR: dataDir, ...env },
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

  it('says no provider answered when every provider failed', { timeout: 60_000 }, async () => {
    await Promise.all(up.mainnet.map((sim) => sim.fault('http-500')));
    try {
      // A directory of its own: the slots of the last 0.01 day are not stored there yet.
      const result = await runCli(['--days', '0.01'], {
        DATA_DIR: mkdtempSync(join(tmpdir(), 'gas-backfill-')),
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/provider calls \(no provider answered\)/);
      expect(result.stderr).toContain('backfill stopped: ');
    } finally {
      await up.reset();
    }
  });

  it.each(['scripts/backfill.ts', 'scripts/db-migrate.ts', 'scripts/history-import.ts'])(
    '%s names a bad environment variable',
    { timeout: 30_000 },
    async (script) => {
      const csv = '../shared/data/owlracle_eth_gas_price_hourly_2024-11-06_2024-12-06.csv';
      const args = script.includes('backfill') ? ['--days', '1'] : script.includes('import') ? [csv] : [];
      const result = await runCli(args, { UPSTREAM_TIMEOUT_MS: 'abc' }, script);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/failed: Invalid configuration:\n\s+UPSTREAM_TIMEOUT_MS: /);
    },
  );

  it('refuses a window beyond the 35-day retention with its usage line', { timeout: 30_000 }, async () => {
    const result = await runCli(['--days', '40']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('usage: npm run backfill -- --days N');
  });
});
