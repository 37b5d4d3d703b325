import { ConfigError } from '../config';
import { createLogger } from '../log';
import { describeDbError } from '../store/database';
import { createBufferedOutput } from './buffered-output';
import { startNodeHost } from './host';

/** Entry point of `npm start`: serve until SIGINT/SIGTERM, then shut down cleanly. */
async function main(): Promise<void> {
  // One line per request, written in batches; whatever is pending is written before the process ends.
  const output = createBufferedOutput((chunk) => process.stdout.write(chunk));
  process.on('exit', () => output.flush());
  const log = createLogger(output.write);
  const host = await startNodeHost(process.env, { log });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    log.info('shutting down', { signal });
    host.close().then(
      () => process.exit(0),
      (error) => {
        log.error('shutdown failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : `start-up failed: ${describeDbError(error)}`);
  process.exit(1);
});
