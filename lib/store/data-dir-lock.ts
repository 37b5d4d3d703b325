import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file a process holds in a PGlite data directory while it has the directory open. */
export const DATA_DIR_LOCK_FILE = 'gas-fee-api.lock';

/**
 * Thrown when another live process (or this one) already has the data directory open. Two PGlite
 * instances on one directory each keep their own copy of the database in memory and write it back
 * on their own: whichever closes last overwrites the other's committed rows.
 */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `${dataDir} is open in process ${pid} (npm start, a backfill or an import?): stop it first, or ` +
        `point this at a PostgreSQL database with DATABASE_URL. If no such process runs, delete ` +
        `${join(dataDir, DATA_DIR_LOCK_FILE)}.`,
    );
  }
}

/** True when a process with this id runs (one we may not signal runs too). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data directory for this process: creates the lock file with this process's id, or takes
 * over one whose process is gone (a crash). Returns the release, which deletes it.
 * @throws DataDirInUseError when a running process, this one included, holds it.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, DATA_DIR_LOCK_FILE);
  // Written whole first, then linked into place (which fails if the lock exists): the lock file is
  // never seen empty, so a reader never takes a half-made lock for a dead one.
  const mine = `${path}.${process.pid}`;
  await writeFile(mine, String(process.pid));
  try {
    for (;;) {
      try {
        await link(mine, path);
        return () => rm(path, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
      if (holder > 0 && isRunning(holder)) throw new DataDirInUseError(dataDir, holder);
      // Left by a process that is gone (a crash): take it over.
      await rm(path, { force: true });
    }
  } finally {
    await rm(mine, { force: true });
  }
}
