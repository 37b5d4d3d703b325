// `npm run backfill -- --days N [--driver neon|pg]`
// Fills mainnet history for the last N days (at most 35) from eth_feeHistory over MAINNET_RPC_URLS,
// one snapshot per 90-second slot, into DATABASE_URL (or the Node host's PGlite under DATA_DIR).
// Resumable and idempotent: slots already stored are skipped, so rerunning continues where it stopped.
import { parseArgs } from 'node:util';
import { BackfillError, type BackfillSummary, runBackfill } from '../cron/backfill';
import { createProgressBar, formatCount } from '../cron/backfill-progress';
import { parseConfig } from '../lib/config';
import type { AppDeps } from '../lib/deps';
import { createCoalescingCache } from '../lib/http/cache';
import { createLogger } from '../lib/log';
import { hostOf, openDatabase, scriptEngineSpec } from '../lib/store/engines';
import { createMemoryLastGoodStore } from '../lib/store/last-good';
import { describeScriptFailure } from './lib/failure';

const USAGE = 'usage: npm run backfill -- --days N [--driver neon|pg]   (N: days, above 0 and at most 35)';
function describeSummary(s: BackfillSummary, where: string, seconds: number): string {
  const span = `${new Date(s.fromMs).toISOString()} .. ${new Date(s.toMs).toISOString()}`;
  return [
    `backfill ${span} on ${where}`,
    `  slots missing at start: ${formatCount(s.total)} (already stored: ${formatCount(s.alreadyStored)})`,
    `  written: ${formatCount(s.written)}, stored meanwhile by another writer: ${formatCount(s.kept)}, ` +
      `without a block: ${formatCount(s.empty)}, rejected by the sanity checks: ${formatCount(s.rejected)}`,
    `  done ${formatCount(s.done)}/${formatCount(s.total)} slots with ${formatCount(s.calls)} provider calls ` +
      `(${s.providers.join(', ') || (s.calls > 0 ? 'no provider answered' : 'no provider needed')}) in ${seconds.toFixed(1)} s`,
  ].join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { days: { type: 'string' }, driver: { type: 'string' } } });
  const days = Number(values.days);
  if (!values.days || !Number.isFinite(days) || days <= 0 || days > 35) throw new Error(USAGE);
  if (values.driver !== undefined && values.driver !== 'neon' && values.driver !== 'pg')
    throw new Error(USAGE);

  const config = parseConfig(process.env);
  const spec = scriptEngineSpec(config, values.driver);
  const where = spec.kind === 'pglite' ? `PGlite in ${config.dataDir}` : `${hostOf(spec.url)} (${spec.kind})`;
  const progress = createProgressBar(process.stderr);
  const log = createLogger((line) => progress.log(line));
  const engine = await openDatabase(spec);
  const started = performance.now();
  try {
    await engine.migrate();
    const deps: AppDeps = {
      config,
      fetch: (input, init) => fetch(input, init),
      now: Date.now,
      log,
      cache: createCoalescingCache(),
      lastGood: createMemoryLastGoodStore(),
      withDb: engine.withDb,
      state: new Map(),
    };
    const summary = await runBackfill(deps, { days, onProgress: (p) => progress.update(p.done, p.total) });
    progress.end();
    console.log(describeSummary(summary, where, (performance.now() - started) / 1000));
    return 0;
  } catch (error) {
    progress.end();
    if (!(error instanceof BackfillError)) throw error;
    console.log(describeSummary(error.summary, where, (performance.now() - started) / 1000));
    console.error(
      `backfill stopped: ${error.message}\nRun the same command again to resume; stored slots are kept.`,
    );
    return 1;
  } finally {
    await engine.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`backfill failed: ${describeScriptFailure(error)}`);
    process.exit(1);
  },
);
