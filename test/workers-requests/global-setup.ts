// Node-side setup of the `workers-requests` project: the upstream simulators, every price source
// answering only after 1.5 s, their addresses handed to the Worker as its bindings (vitest.config.ts),
// so each SELF.fetch is a request of its own, as in production.
import type { TestProject } from 'vitest/node';
import { startUpstreams } from '../upstreams';

declare module 'vitest' {
  export interface ProvidedContext {
    /** JSON of the Worker's environment: the simulators' addresses. */
    requestsTestEnv: string;
  }
}

/** How long every price source takes to answer: well past the forecast's 250 ms wait for a price. */
export const PRICE_DELAY_MS = 1_500;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const upstreams = await startUpstreams();
  for (const sim of [upstreams.coingecko, upstreams.coinbase, upstreams.kraken]) {
    await sim.fault('delay', { ms: PRICE_DELAY_MS });
  }
  project.provide('requestsTestEnv', JSON.stringify({ ...upstreams.env, UPSTREAM_TIMEOUT_MS: '2500' }));
  return () => upstreams.close();
}
