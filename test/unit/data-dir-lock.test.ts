// One process per PGlite data directory (lib/store/data-dir-lock.ts): two PGlite instances writing to
// one directory lose one side's committed rows, so the second is refused before it opens anything.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE, DataDirInUseError, lockDataDir } from '../../lib/store/data-dir-lock';
import { openDatabase } from '../../lib/store/engines';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gas-lock-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the data directory lock', () => {
  it('is held once: a second taker is refused with the holder named, and it is free again after release', async () => {
    const release = await lockDataDir(dir);
    expect(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8')).toBe(String(process.pid));
    const refused = await lockDataDir(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect(String((refused as Error).message)).toContain(`is open in process ${process.pid}`);
    await release();
    expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
    await (await lockDataDir(dir))();
  });

  it('is taken over from a process that is gone (a crash)', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(gone.stdout.toString());
    expect(deadPid).toBeGreaterThan(0);
    writeFileSync(join(dir, DATA_DIR_LOCK_FILE), String(deadPid));
    const release = await lockDataDir(dir);
    expect(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8')).toBe(String(process.pid));
    await release();
  });

  it('keeps a second PGlite off an open directory, and lets it in once the first has closed', async () => {
    const first = await openDatabase({ kind: 'pglite', dataDir: dir });
    await first.migrate();
    await expect(openDatabase({ kind: 'pglite', dataDir: dir })).rejects.toBeInstanceOf(DataDirInUseError);
    await first.close();
    const second = await openDatabase({ kind: 'pglite', dataDir: dir });
    await second.close();
  });
});
