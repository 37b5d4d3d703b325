// `npm run history:import -- FILE [--time-column C] [--value-column C] [--unit gwei|wei] [--driver neon|pg]`
// Imports a CSV of times (ISO 8601 or Unix seconds) and gas prices into mainnet history: each row
// sets all three tiers, source `import`, in the 90-second slot it falls in; stored slots are kept.
import { parseArgs } from 'node:util';
import { parseConfig } from '../lib/config';
import { hostOf, openDatabase, scriptEngineSpec } from '../lib/store/engines';
import { importHistory } from '../lib/store/history-import';
import { HISTORY_RETENTION_DAYS } from '../lib/store/history-writes';
import { readCsvSeries } from './lib/csv';
import { describeScriptFailure } from './lib/failure';

const USAGE =
  'usage: npm run history:import -- FILE [--time-column C] [--value-column C] [--unit gwei|wei] [--driver neon|pg]';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'time-column': { type: 'string' },
      'value-column': { type: 'string' },
      unit: { type: 'string', default: 'gwei' },
      driver: { type: 'string' },
    },
  });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new Error(USAGE);
  if (values.unit !== 'gwei' && values.unit !== 'wei') throw new Error('--unit must be gwei or wei');
  if (values.driver !== undefined && values.driver !== 'neon' && values.driver !== 'pg') {
    throw new Error('--driver must be neon or pg');
  }
  // A wei file is read as whole wei and turned into gwei exact to the wei, never scaled by 1e-9.
  const rows = await readCsvSeries(file, {
    timeColumn: values['time-column'],
    valueColumn: values['value-column'],
    valueInWei: values.unit === 'wei',
  });

  const config = parseConfig(process.env);
  const spec = scriptEngineSpec(config, values.driver);
  const engine = await openDatabase(spec);
  try {
    await engine.migrate();
    const summary = await engine.withDb((db) => importHistory(db, rows));
    const where = spec.kind === 'pglite' ? `PGlite in ${config.dataDir}` : hostOf(spec.url);
    const old =
      summary.tooOld > 0
        ? `; ${summary.tooOld} rows older than the ${HISTORY_RETENTION_DAYS.mainnet}-day retention not imported`
        : '';
    console.log(
      `${file}: ${summary.rows} rows into ${summary.slots} slots on ${where}: ` +
        `${summary.written} written, ${summary.kept} kept (already stored)${old}`,
    );
  } finally {
    await engine.close();
  }
}

main().catch((error) => {
  console.error(`history:import failed: ${describeScriptFailure(error)}`);
  process.exit(1);
});
