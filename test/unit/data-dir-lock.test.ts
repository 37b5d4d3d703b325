// One process per PGlite data directory (lib/store/data-dir-lock.ts): two PGlite instances writing to
// one directory lose one side's committed rows, so the second is refused before it opens anything.
import { execFile, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK_FILE, DataDirInUseError, lockDataDir } from '../../lib/store/data-dir-lock';
import { openDatabase } from '../../lib/store/engines';

const execFileAsync = promisify(execFile);

/** The id of a process that has exited. */
function deadPid(): number {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  const pid = Number(gone.stdout.toString());
  expect(pid).toBeGreaterThan(0);
  return pid;
}

/** The process id a lock names (its text is the id, then the process's start time where known). */
function lockHolder(): string {
  return readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8').split(' ')[0] ?? '';
}

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
    expect(lockHolder()).toBe(String(process.pid));
    const refused = await lockDataDir(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect(String((refused as Error).message)).toContain(`is open in process ${process.pid}`);
    await release();
    expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
    await (await lockDataDir(dir))();
  });

  it('is taken over from a process that is gone (a crash)', async () => {
    writeFileSync(join(dir, DATA_DIR_LOCK_FILE), String(deadPid()));
    const release = await lockDataDir(dir);
    expect(lockHolder()).toBe(String(process.pid));
    await release();
  });

  it("is taken over from a crashed process that had this process's id (a restarted container)", async () => {
    // The lock names this process, which does not hold it: an earlier process with the same id left it.
    writeFileSync(join(dir, DATA_DIR_LOCK_FILE), String(process.pid));
    const release = await lockDataDir(dir);
    expect(lockHolder()).toBe(String(process.pid));
    await expect(lockDataDir(dir)).rejects.toBeInstanceOf(DataDirInUseError);
    await release();
    expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
  });

  it.runIf(existsSync('/proc/self/stat'))(
    'is taken over from a crashed process whose id another running process has since, and refused to the real holder',
    async () => {
      const other = spawn('sleep', ['30']);
      try {
        const pid = other.pid ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 50));
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
        // The lock of the process now running under that id: refused.
        writeFileSync(join(dir, DATA_DIR_LOCK_FILE), `${pid} ${started}`);
        await expect(lockDataDir(dir)).rejects.toBeInstanceOf(DataDirInUseError);
        // A lock left under that id by a process started at another time (before a reboot): taken over.
        writeFileSync(join(dir, DATA_DIR_LOCK_FILE), `${pid} ${Number(started) + 1}`);
        const release = await lockDataDir(dir);
        expect(lockHolder()).toBe(String(process.pid));
        await release();
      } finally {
        other.kill();
      }
    },
  );

  it('refuses this process a second open of its directory under another spelling (relative, a symbolic link)', async () => {
    const release = await lockDataDir(dir);
    const alias = `${dir}-alias`;
    symlinkSync(dir, alias);
    try {
      await expect(lockDataDir(alias)).rejects.toBeInstanceOf(DataDirInUseError);
      await expect(lockDataDir(relative(process.cwd(), dir))).rejects.toBeInstanceOf(DataDirInUseError);
    } finally {
      rmSync(alias);
      await release();
    }
  });

  it('lets one of several processes starting together take over a stale lock, and refuses the others', async () => {
    // Deleting a stale lock on sight let two takers each delete the lock the other had just made, and
    // both open the directory (2 of 2 took it in 9 of 12 such races).
    const taker = join(import.meta.dirname, '../helpers/data-dir-lock-taker.ts');
    let races = 0;
    for (let trial = 0; races < 4 && trial < 12; trial += 1) {
      rmSync(join(dir, DATA_DIR_LOCK_FILE), { force: true });
      writeFileSync(join(dir, DATA_DIR_LOCK_FILE), String(deadPid()));
      const startAt = Date.now() + 2_500;
      const outputs = await Promise.all(
        Array.from({ length: 4 }, () =>
          execFileAsync(process.execPath, ['--import', 'tsx', taker, dir, String(startAt)]).then(
            ({ stdout }) => stdout.trim(),
          ),
        ),
      );
      if (outputs.includes('LATE')) continue;
      races += 1;
      expect(outputs.sort(), `trial ${trial}`).toEqual(['LOCKED', 'REFUSED', 'REFUSED', 'REFUSED']);
      expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
      expect(readdirSync(dir), 'no marker or taker file left').toEqual([]);
    }
    expect(races).toBe(4);
  }, 120_000);

  it.each([
    ['whose taker is gone', () => String(deadPid())],
    ['that names nobody', () => 'garbled'],
    ['whose taker id names a live process for longer than a takeover takes', () => String(process.ppid)],
  ])(
    'refuses, naming both files, at a takeover marker %s instead of waiting for ever',
    async (_, marker) => {
      const holder = deadPid();
      writeFileSync(join(dir, DATA_DIR_LOCK_FILE), String(holder));
      writeFileSync(join(dir, `${DATA_DIR_LOCK_FILE}.takeover-${holder}`), marker());
      const refused = await lockDataDir(dir).catch((error: unknown) => error);
      expect(String(refused)).toContain('was cut short');
      expect(String(refused)).toContain(`${DATA_DIR_LOCK_FILE}.takeover-${holder}`);
      // Nothing of the stale lock was touched: an operator decides.
      expect(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8')).toBe(String(holder));
    },
    20_000,
  );

  it('releases only its own lock, not one another process holds by then', async () => {
    const release = await lockDataDir(dir);
    writeFileSync(join(dir, DATA_DIR_LOCK_FILE), '999999999');
    await release();
    expect(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8')).toBe('999999999');
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
