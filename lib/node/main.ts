import { ConfigError } from '../config';
import { createLogger } from '../log';
import { describeDbError } from '../store/database';
import { createBoundedWriter, createBufferedOutput } from './buffered-output';
import { startNodeHost } from './host';

/** How long a clean shutdown waits for the log's last lines to leave through a slow pipe. */
const SHUTDOWN_DRAIN_MS = 5_000;
/** A signal at least this long after the first one ends the shutdown at once. */
const SECOND_SIGNAL_AFTER_MS = 1_000;

/** Entry point of `npm start`: serve until SIGINT/SIGTERM, then shut down cleanly. */
async function main(): Promise<void> {
  // One line per request, written in batches, never queued without bound in a pipe whose reader lags;
  // whatever is pending is written, and has left the process, before a clean shutdown ends it.
  const stdout = createBoundedWriter(process.stdout);
  const output = createBufferedOutput(stdout.write);
  process.on('exit', () => output.flush());
  const log = createLogger(output.write);
  const host = await startNodeHost(process.env, { log });
  let closingSince: number | undefined;
  const shutdown = (signal: string) => {
    if (closingSince !== undefined) {
      // One Ctrl-C under `npm start` arrives twice (npm forwards the terminal's SIGINT to this process,
      // which got it too): only a signal a second or more later means the operator will not wait.
      // Committed writes are durable; the lock is taken over by the next start.
      if (Date.now() - closingSince < SECOND_SIGNAL_AFTER_MS) return;
      log.warn('second signal: exiting now', { signal });
      output.flush();
      process.exit(1);
    }
    closingSince = Date.now();
    log.info('shutting down', { signal });
    host
      .close()
      .then(
        () => 0,
        (error) => {
          log.error('shutdown failed', { error: String(error) });
          return 1;
        },
      )
      .then(async (code) => {
        output.flush();
        await stdout.drained(SHUTDOWN_DRAIN_MS);
        process.exit(code);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : `start-up failed: ${describeDbError(error)}`);
  process.exit(1);
});
