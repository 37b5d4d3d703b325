// `npm run backtest` (scripts/backtest.ts) refuses bad input by name, before the walk-forward run.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url).href);
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const CSV = '../shared/data/mainnet_basefee_hourly_median_2026-01-07_2026-01-21.csv';

function runCli(args: string[]) {
  const result = spawnSync(process.execPath, [TSX, 'scripts/backtest.ts', '--csv', CSV, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run backtest, bad input', () => {
  it.each([
    [['--spikes', 'abc'], '--spikes must be a whole number'],
    [['--seed', 'x'], '--seed must be a whole number'],
    // Number('') and Number(' ') are 0: an empty value must not pass for seed 0 or no spikes.
    [['--seed', ''], '--seed must be a whole number'],
    [['--spikes', ' '], '--spikes must be a whole number'],
    [['--eth-usd', ''], '--eth-usd must be a positive price'],
    [['--eth-usd', 'cheap'], '--eth-usd must be a positive price'],
  ])('%j names the flag and prints the usage', { timeout: 30_000 }, (args, message) => {
    const result = runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('usage: npx tsx scripts/backtest.ts');
  });

  it('refuses a --predictions-out it cannot write before the run, naming it', { timeout: 30_000 }, () => {
    const result = runCli(['--predictions-out', '/nonexistent-dir/predictions.jsonl']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'cannot write --predictions-out /nonexistent-dir/predictions.jsonl: ENOENT',
    );
    expect(result.stdout).toBe('');
  });
});
