// The Worker script as `npm run deploy` builds it (wrangler's dry run) stays within issue 17's budget:
// a bigger script starts slower in every new isolate. A size, not a timing: the same on any machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BUDGET_GZIP_KIB = 350;

describe('Worker bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gas-worker-bundle-test-'));
  let script: Buffer;

  beforeAll(() => {
    const built = spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', dir], {
      encoding: 'utf8',
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    });
    if (built.status !== 0) throw new Error(`wrangler build failed: ${built.stderr}`);
    script = readFileSync(join(dir, 'index.js'));
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`is at most ${BUDGET_GZIP_KIB} KiB gzip`, () => {
    const gzipKib = gzipSync(script).length / 1024;
    console.log(`Worker bundle: ${(script.length / 1024).toFixed(1)} KiB raw, ${gzipKib.toFixed(1)} KiB gzip`);
    expect(gzipKib).toBeLessThanOrEqual(BUDGET_GZIP_KIB);
  });

  it('leaves out what the Worker never runs', () => {
    const text = script.toString('utf8');
    // Strings of code a constant dependency would drag in: viem's public actions (call simulation,
    // signature checks with the secp256k1 curve), Zod's locales (German here) and the real Ajv.
    for (const marker of ['eth_simulateV1', 'secp256k1', 'Ungültige Eingabe', 'ajv implementation error']) {
      expect(text.includes(marker), marker).toBe(false);
    }
  });
});
