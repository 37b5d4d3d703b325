// The Worker script as `npm run deploy` builds it (wrangler's dry run) stays within issue 17's budget:
// a bigger script starts slower in every new isolate. A size, not a timing: the same on any machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BUDGET_GZIP_KIB = 350;
const ROOT = fileURLToPath(new URL('../..', import.meta.url).href);

describe('Worker bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gas-worker-bundle-test-'));
  let script: Buffer;
  let gzipBytes = 0;

  beforeAll(() => {
    // wrangler from the lockfile, never fetched, and bounded: a stalled build fails instead of hanging.
    const built = spawnSync(
      join(ROOT, 'node_modules', '.bin', 'wrangler'),
      ['deploy', '--dry-run', '--outdir', dir],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 170_000,
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
      },
    );
    if (built.status !== 0) throw new Error(`wrangler build failed: ${built.error ?? built.stderr}`);
    script = readFileSync(join(dir, 'index.js'));
    // Every module and wasm file the deploy would upload counts, as scripts/bundle-size.mjs counts them.
    for (const name of readdirSync(dir).filter((file) => /\.(m?js|wasm)$/.test(file))) {
      gzipBytes += gzipSync(readFileSync(join(dir, name))).length;
    }
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`is at most ${BUDGET_GZIP_KIB} KiB gzip`, () => {
    const gzipKib = gzipBytes / 1024;
    console.log(
      `Worker bundle: ${(script.length / 1024).toFixed(1)} KiB raw script, ${gzipKib.toFixed(1)} KiB gzip`,
    );
    expect(gzipKib).toBeLessThanOrEqual(BUDGET_GZIP_KIB);
  });

  it('leaves out what the Worker never runs', () => {
    const text = script.toString('utf8');
    // Strings of code a constant dependency would drag in: viem's public actions (call simulation,
    // ENS, signature checks with the secp256k1 curve), Zod's locales (German here) and the real Ajv.
    const markers = [
      'eth_simulateV1',
      'resolveWithGateways',
      'secp256k1',
      'Ungültige Eingabe',
      'ajv implementation error',
    ];
    for (const marker of markers) {
      expect(text.includes(marker), marker).toBe(false);
    }
  });
});
