// A process taking a PGlite data directory's lock (test/unit/data-dir-lock.test.ts): it waits for a
// common start time so that several takers race, prints `LOCKED` or `REFUSED`, holds a taken lock
// a while so that the others meet it, and releases it.
import { setTimeout as delay } from 'node:timers/promises';
import { DataDirInUseError, lockDataDir } from '../../lib/store/data-dir-lock';

const [dir = '', startAt = '0'] = process.argv.slice(2);
// A taker that starts after the others have been and gone races nobody: the test tries again.
if (Date.now() >= Number(startAt)) {
  process.stdout.write('LATE\n');
  process.exit(0);
}
while (Date.now() < Number(startAt)) {
  // Spin rather than sleep: a timer would spread the takers' start over milliseconds.
}
try {
  const release = await lockDataDir(dir);
  process.stdout.write('LOCKED\n');
  await delay(800);
  await release();
} catch (error) {
  process.stdout.write(error instanceof DataDirInUseError ? 'REFUSED\n' : `ERROR ${String(error)}\n`);
}
