// `npm run db:migrate [-- --driver neon|pg]`: applies drizzle/migrations to DATABASE_URL (the
// Worker's Neon database), or to the embedded PGlite under DATA_DIR when DATABASE_URL is unset.
import { parseArgs } from 'node:util';
import { parseConfig } from '../lib/config';
import { hostOf, openDatabase, scriptEngineSpec } from '../lib/store/engines';
import { describeScriptFailure } from './lib/failure';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { driver: { type: 'string' } } });
  if (values.driver !== undefined && values.driver !== 'neon' && values.driver !== 'pg') {
    throw new Error('--driver must be neon or pg');
  }
  const config = parseConfig(process.env);
  const spec = scriptEngineSpec(config, values.driver);
  const engine = await openDatabase(spec);
  try {
    await engine.migrate();
  } finally {
    await engine.close();
  }
  const where = spec.kind === 'pglite' ? `PGlite in ${config.dataDir}` : `${hostOf(spec.url)} (${spec.kind})`;
  console.log(`migrations applied to ${where}`);
}

main().catch((error) => {
  console.error(`db:migrate failed: ${describeScriptFailure(error)}`);
  process.exit(1);
});
