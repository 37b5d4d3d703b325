import { env } from 'cloudflare:test';
import { neonConfig } from '@neondatabase/serverless';
import type { SnapshotTestSetup } from './global-setup';

/** What global-setup.ts started: the test database, the Neon relay and the upstream simulators. */
export const setup = JSON.parse(env.SNAPSHOT_TEST_SETUP ?? '{}') as SnapshotTestSetup;

/** The Worker's own bindings plus the test database and the simulators. */
export const workerEnv = { ...env, ...setup.env };

/**
 * Test-only Neon settings: reach the local relay over plain ws:// instead of Neon's TLS endpoint.
 * They live in the tests, not in the Worker: the Worker's code is the production path, untouched.
 */
export function useNeonRelay(): void {
  neonConfig.wsProxy = (host, port) => `127.0.0.1:${setup.relayPort}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}
