// Node-side setup of the `workers` project: a real PostgreSQL 15 reachable through Neon's WebSocket
// protocol (the relay), and the upstream simulators. workerd cannot run them, so they start here and
// their addresses reach the Worker as one string binding (see vitest.config.ts). It also copies the API
// reference's renderer into the static assets folder, as wrangler's [build] step does before a deploy.
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../lib/store/engines';
import { copyWebVendor } from '../../scripts/copy-web-vendor';
import { startNeonRelay } from '../integration/helpers/neon-ws-relay';
import { startPostgres } from '../integration/helpers/postgres-server';
import { startUpstreams } from '../upstreams';

/** What the workerd tests receive: the Worker's environment and where the Neon relay listens. */
export interface SnapshotTestSetup {
  env: Record<string, string>;
  relayPort: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** JSON of SnapshotTestSetup. */
    snapshotTestSetup: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The Worker serves /docs' renderer from its static assets, as `wrangler deploy` would after [build].
  copyWebVendor();
  const [server, relay, upstreams] = await Promise.all([startPostgres(), startNeonRelay(), startUpstreams()]);
  const databaseUrl = await server.createDatabase('workers_snapshots');
  const engine = await openDatabase({ kind: 'pg', url: databaseUrl });
  await engine.migrate();
  await engine.close();
  const setupValue: SnapshotTestSetup = {
    env: { ...upstreams.env, DATABASE_URL: databaseUrl, UPSTREAM_TIMEOUT_MS: '1500' },
    relayPort: relay.port,
  };
  project.provide('snapshotTestSetup', JSON.stringify(setupValue));
  return async () => {
    await upstreams.close();
    await relay.close();
    await server.stop();
  };
}
