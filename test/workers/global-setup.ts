// Node-side setup of the `workers` project: a real PostgreSQL 15 reachable through Neon's WebSocket
// protocol (the relay), and the upstream simulators. workerd cannot run them, so they start here and
// their addresses reach the Worker as one string binding (see vitest.config.ts). It also copies the API
// reference's renderer into the static assets folder, as wrangler's [build] step does before a deploy.
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../lib/store/engines';
import { copyWebVendor } from '../../scripts/copy-web-vendor';
import { createFleetInstance } from '../helpers/fleet';
import { startNeonRelay } from '../integration/helpers/neon-ws-relay';
import { startPostgres } from '../integration/helpers/postgres-server';
import { startRedisServer } from '../integration/helpers/redis-server';
import { startUpstashBridge } from '../integration/helpers/upstash-bridge';
import { startUpstreams } from '../upstreams';

/** What the workerd tests receive: the Worker's environment and where the Neon relay listens. */
export interface SnapshotTestSetup {
  env: Record<string, string>;
  relayPort: number;
  /** A real Redis behind the Upstash REST bridge, holding the mainnet entry a Node instance wrote. */
  upstash: { url: string; token: string };
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
  const [server, relay, upstreams, redis] = await Promise.all([
    startPostgres(),
    startNeonRelay(),
    startUpstreams(),
    startRedisServer(),
  ]);
  const bridge = await startUpstashBridge(redis.port);
  const upstash = { url: bridge.url, token: bridge.token };
  // A Node instance of the app reads mainnet gas through the shared entry, as another isolate would.
  const peer = createFleetInstance(
    { ...upstreams.env, UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token },
    { shared: true },
  );
  if ((await peer.request('/api/gas')).status !== 200) throw new Error('the peer instance could not read');
  const databaseUrl = await server.createDatabase('workers_snapshots');
  const engine = await openDatabase({ kind: 'pg', url: databaseUrl });
  await engine.migrate();
  await engine.close();
  const setupValue: SnapshotTestSetup = {
    env: { ...upstreams.env, DATABASE_URL: databaseUrl, UPSTREAM_TIMEOUT_MS: '1500' },
    relayPort: relay.port,
    upstash,
  };
  project.provide('snapshotTestSetup', JSON.stringify(setupValue));
  return async () => {
    await upstreams.close();
    await bridge.close();
    await redis.stop();
    await relay.close();
    await server.stop();
  };
}
