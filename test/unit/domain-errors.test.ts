import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { DomainError, GasUnavailableError, HistoryStoreUnavailableError } from '../../lib/errors';
import { problemFromDomainError } from '../../lib/http/problem';
import { createTestDeps } from '../helpers/deps';
import { findFreePort } from '../helpers/free-port';

/** An app whose every mainnet upstream refuses connections and whose history store is down. */
async function appWithNothingUp(now?: () => number) {
  const dead = `http://127.0.0.1:${await findFreePort()}`;
  const deps = createTestDeps(
    { MAINNET_RPC_URLS: `${dead}/k`, ETHERSCAN_API_URL: dead, UPSTREAM_TIMEOUT_MS: '500' },
    {
      withDb: () => Promise.reject(new Error(`connect ECONNREFUSED ${dead.slice(7)}`)),
      ...(now ? { now } : {}),
    },
  );
  return { app: createApp(deps), deps, dead };
}

/** The whole answer a client sees: status, the headers an error carries, and the body. */
async function answer(res: Response) {
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
    cacheControl: res.headers.get('cache-control'),
    cors: res.headers.get('access-control-allow-origin'),
    body: await res.json(),
  };
}

/** The 503 answer clients have always had for an unavailable dependency, to the byte (mainnet gas's Retry-After aside). */
function unavailable(title: string, detail: string, instance: string) {
  return {
    status: 503,
    contentType: 'application/problem+json',
    retryAfter: '30',
    cacheControl: 'no-store',
    cors: '*',
    body: { type: 'https://httpstatuses.io/503', title, status: 503, detail, instance },
  };
}

describe('domain errors at the HTTP edge', () => {
  it('answers GasUnavailableError with the same 503 problem as before the services stopped speaking HTTP', async () => {
    // A clock that stands still: the hint is then the whole back-off, whatever the machine's speed.
    const now = Date.now();
    const { app, deps, dead } = await appWithNothingUp(() => now);
    const res = await app.request('/api/gas');
    expect(await answer(res)).toEqual({
      ...unavailable(
        'Gas data unavailable',
        'No mainnet gas upstream answered and no reading of the last 5 minutes is available.',
        '/api/gas',
      ),
      // Since 2026-11-28 the time until the failed refresh is tried again: 5 s for a first failure,
      // and up to a second more until this instance looks again.
      retryAfter: expect.stringMatching(/^[56]$/),
    });
    const port = new URL(dead).port;
    expect(deps.logs.join('\n')).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${port}`));
  });

  it.each(['/api/gas-history?range=7d', '/api/l2-gas-history?network=base&hours=24'])(
    'answers HistoryStoreUnavailableError on %s with the same 503 problem as before',
    async (path) => {
      const { app, deps, dead } = await appWithNothingUp();
      const res = await app.request(path);
      expect(await answer(res)).toEqual(
        unavailable(
          'History store unavailable',
          'The history database cannot be reached; retry shortly.',
          path,
        ),
      );
      // The store's failure is logged for the operator, without the address it could not reach.
      const logs = deps.logs.join('\n');
      expect(logs).toContain('history store unavailable');
      expect(logs).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${new URL(dead).port}`));
    },
  );

  it('maps an unavailable error to 503 with its retry hint and any other domain error to 500', () => {
    const gas = problemFromDomainError(new GasUnavailableError('nothing answered', 12));
    expect([gas.status, gas.title, gas.detail, gas.extra.retryAfterSeconds]).toEqual([
      503,
      'Gas data unavailable',
      'nothing answered',
      12,
    ]);
    const store = problemFromDomainError(new HistoryStoreUnavailableError('down', 30));
    expect([store.status, store.title, store.extra.retryAfterSeconds]).toEqual([
      503,
      'History store unavailable',
      30,
    ]);
    class OddError extends DomainError {
      readonly summary = 'Odd';
    }
    const odd = problemFromDomainError(new OddError('something odd'));
    expect([odd.status, odd.title, odd.detail, odd.extra.retryAfterSeconds]).toEqual([
      500,
      'Odd',
      'something odd',
      undefined,
    ]);
  });
});
