import { link, readFile, realpath, rm, writeFile } from 'node:fs/promises';
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
 * When process `pid` started, in clock ticks since boot (field 22 of Linux's `/proc/<pid>/stat`), or
 * undefined where there is no such file. Kept beside the id in the lock: after a crash and a reboot
 * the id may name another process, which then does not hold the lock.
 */
async function startTimeOf(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (in parentheses, maybe with spaces) start at field 3.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether the process a lock's text names (`<pid>` or `<pid> <start time>`) is the one running now. */
async function isHolderRunning(held: string, holder: number): Promise<boolean> {
  if (!(holder > 0) || !isRunning(holder)) return false;
  const recorded = held.trim().split(' ')[1];
  if (recorded === undefined) return true;
  const now = await startTimeOf(holder);
  return now === undefined || now === recorded;
}

/** The lock file's text, or undefined when there is none. */
async function readLock(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Links `from` to `to` unless `to` exists; true when this call made the link. */
async function linkOnce(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * The locks this process holds. A lock naming this process's id that is not among them was left by
 * an earlier process that had the same id: a container restarted after a crash gives its new process
 * the id the old one had.
 */
const heldHere = new Set<string>();

/** How long a taker waits for another that is taking over the same stale lock, between looks. */
const TAKEOVER_POLL_MS = 20;
/** How long a taker waits in all for another's takeover before calling it cut short. */
const TAKEOVER_WAIT_MS = 5_000;

/**
 * Takes the data directory for this process: creates the lock file with this process's id, or takes
 * over one whose process is gone (a crash). Returns the release, which deletes the lock if it is
 * still this process's.
 *
 * A stale lock is taken over by one taker at a time: the one that creates `<lock>.takeover-<pid of
 * the dead holder>` removes the lock (after reading it again: still the dead holder's) and then
 * races for it like any taker; the others wait until that marker is gone and look again. Deleting it
 * on sight instead let two processes starting together each delete the lock the other had just
 * made, and both open the directory.
 * @throws DataDirInUseError when a running process, this one included, holds it.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  // The directory's one true path: this process's own locks are known by it, whatever the spelling
  // (relative, absolute, through a symbolic link) it is opened by.
  const path = join(await realpath(dataDir), DATA_DIR_LOCK_FILE);
  const pid = String(process.pid);
  const started = await startTimeOf(process.pid);
  const text = started === undefined ? pid : `${pid} ${started}`;
  // Written whole first, then linked into place (which fails if the lock exists): the lock file is
  // never seen empty, so a reader never takes a half-made lock for a dead one.
  const mine = `${path}.${pid}`;
  const waitUntil = Date.now() + TAKEOVER_WAIT_MS;
  await writeFile(mine, text);
  try {
    for (;;) {
      if (await linkOnce(mine, path)) {
        heldHere.add(path);
        return async () => {
          heldHere.delete(path);
          if ((await readLock(path)) === text) await rm(path, { force: true });
        };
      }
      const held = await readLock(path);
      if (held === undefined) continue;
      const holder = Number.parseInt(held, 10);
      const alive = holder === process.pid ? heldHere.has(path) : await isHolderRunning(held, holder);
      if (alive) throw new DataDirInUseError(dataDir, holder);
      // Left by a process that is gone (a crash), maybe one that had this id, or whose id another
      // process has since: take it over, one taker at a time.
      const marker = `${path}.takeover-${holder > 0 ? holder : 'unreadable'}`;
      if (!(await linkOnce(mine, marker))) {
        const marked = await readLock(marker);
        if (marked === undefined) continue; // that takeover is over: look again
        const taker = Number.parseInt(marked, 10);
        // A takeover takes microseconds: one still marked after TAKEOVER_WAIT_MS was cut short (its
        // taker gone, or its id since reused).
        if (taker > 0 && isRunning(taker) && Date.now() < waitUntil) {
          await new Promise((resolve) => setTimeout(resolve, TAKEOVER_POLL_MS));
          continue;
        }
        throw new Error(
          `a takeover of the stale lock ${path} (by process ${marked.slice(0, 20)}) was cut short: ` +
            `if no process has ${dataDir} open, delete ${path} and ${marker}.`,
        );
      }
      try {
        if ((await readLock(path)) === held) await rm(path, { force: true });
      } finally {
        await rm(marker, { force: true });
      }
    }
  } finally {
    await rm(mine, { force: true });
  }
}
