import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/{unit,integration,e2e}/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: {
                PUBLIC_BASE_URL: 'https://gas.test',
                // Test-only: the Postgres, Neon relay and simulators of global-setup.ts, read by the
                // snapshot tests alone (the Worker ignores unknown bindings).
                SNAPSHOT_TEST_SETUP: inject('snapshotTestSetup'),
              },
            },
          })),
        ],
        test: {
          name: 'workers',
          include: ['test/workers/**/*.test.ts'],
          globalSetup: ['test/workers/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The Worker over separate requests (SELF.fetch), its bindings pointing at the simulators.
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: { PUBLIC_BASE_URL: 'https://gas.test', ...JSON.parse(inject('requestsTestEnv')) },
            },
          })),
        ],
        test: {
          name: 'workers-requests',
          include: ['test/workers-requests/**/*.test.ts'],
          globalSetup: ['test/workers-requests/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
