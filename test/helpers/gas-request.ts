import { expect } from 'vitest';
import { createApp } from '../../functions/app';
import { expectNoLeaks, type UpstreamIdentity } from '../upstreams/leaks';
import type { TestDeps } from './deps';

/**
 * GETs /api/gas from an app over `deps` and checks that neither the body nor any log line carries an
 * upstream's URL, key, address or port (expectNoLeaks), nor any of `traces` (parts of a URL's path or
 * query a test's upstreams use, such as `/v2/api` or `apikey`).
 */
export async function getGasWithoutLeaks(
  up: UpstreamIdentity,
  deps: TestDeps,
  traces: readonly string[],
): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await createApp(deps).request('/api/gas');
  const text = await res.text();
  for (const trace of [...up.all.map((sim) => sim.url), ...traces]) {
    expect(text).not.toContain(trace);
    for (const line of deps.logs) expect(line).not.toContain(trace);
  }
  expectNoLeaks(up, text, ...deps.logs);
  return { res, body: JSON.parse(text) as Record<string, unknown> };
}
