import { runScheduledJobs } from '../cron/scheduled';
import { type Config, ConfigError, parseConfig } from '../lib/config';
import type { AppDeps } from '../lib/deps';
import { createCoalescingCache } from '../lib/http/cache';
import { edgeLifetime } from '../lib/http/cache-control';
import { etagMatches } from '../lib/http/cached-json';
import { edgeCopy, serveEdgeCopy } from '../lib/http/edge-copy';
import { HttpProblem, standaloneProblemResponse } from '../lib/http/problem';
import { createLogger } from '../lib/log';
import { createLastGoodStore } from '../lib/store/create-last-good';
import { createNeonWithDb } from '../lib/store/neon';
import { sharedReadsSettled } from '../lib/store/shared-read';
import type { WebAssets } from '../lib/web/assets';
import { createApp } from './app';
import type { ApiApp } from './app-env';

/** Worker bindings: plain-text vars and secrets (see wrangler.toml), and the static assets binding. */
export type Env = Record<string, string | undefined> & { ASSETS?: Fetcher };

// Per-isolate state that holds no I/O objects: caches, provider health, the parsed config.
const cache = createCoalescingCache();
const state = new Map<string, unknown>();
const log = createLogger();
let built: { env: Env; config: Config; app: ApiApp; deps: AppDeps } | undefined;
/** The env whose configuration was refused, so its error is logged once, not on every request. */
let refused: Env | undefined;

/** Builds (once per isolate and env) the app and its dependencies. */
function appFor(env: Env) {
  if (built?.env === env) return built;
  const { ASSETS: assets, ...vars } = env;
  const config = parseConfig(vars);
  const deps: AppDeps = {
    config,
    fetch: (input, init) => fetch(input, init),
    now: Date.now,
    log,
    cache,
    lastGood: createLastGoodStore(config),
    withDb: config.databaseUrl
      ? createNeonWithDb(config.databaseUrl)
      : () => Promise.reject(new Error('DATABASE_URL is not set')),
    state,
    // The pages and the API reference's renderer come from `[assets]` (wrangler.toml), not the script.
    ...(assets ? { web: assetsBinding(assets) } : {}),
  };
  built = { env, config, app: createApp(deps), deps };
  return built;
}

/** Serves pages and assets from the static assets binding (it answers ETags and 304s itself). */
function assetsBinding(assets: Fetcher): WebAssets {
  return {
    async serve(_path, request) {
      const res = await assets.fetch(request);
      return res.status === 404 ? undefined : res;
    },
  };
}

/**
 * The app for `env`, or undefined when its configuration is refused: logged once (the variables
 * named, never their values).
 */
function hostFor(env: Env): ReturnType<typeof appFor> | undefined {
  try {
    return appFor(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (refused !== env) log.error('configuration refused', { error: error.message });
    refused = env;
    return undefined;
  }
}

/**
 * Answers a request; a configuration the Worker cannot start with is answered as the app answers its
 * own errors, where Cloudflare would show its generic error page. From the start the request is kept
 * alive (`waitUntil`) until it has answered and every coalesced read then in flight has settled: a
 * client that leaves early would otherwise cancel the reads it started, as workerd does on answering.
 */
async function handleFetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const host = hostFor(env);
  if (!host) return misconfigured();
  let answered: () => void = () => {};
  ctx.waitUntil(
    new Promise<void>((resolve) => (answered = resolve)).then(() => inFlightReadsSettled(host.deps)),
  );
  try {
    return await answer(host.app, request, env, ctx);
  } finally {
    answered();
  }
}

/** The answer of a Worker whose configuration is refused: a 500 problem with CORS and the usual headers. */
function misconfigured(): Response {
  return standaloneProblemResponse(
    new HttpProblem(
      500,
      'Service misconfigured',
      'The service cannot start with its configuration; its operator finds the reason in the log.',
    ),
  );
}

/** Answers from the edge cache when a fresh copy is there; else runs the app and keeps a 200 GET for its s-maxage. */
async function answer(app: ApiApp, request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  if (request.method !== 'GET') return app.fetch(request, env, ctx);
  const edge = (caches as unknown as { default: Cache }).default;
  // Looked up without the client's conditional headers: the Cache API would answer a 304 of its own,
  // also on If-Modified-Since, though bodies that differ can share a Last-Modified (the data's time).
  // Only the current tag gets a 304, as from the app.
  const hit = await edge.match(request.url).catch((error: unknown) => {
    // The edge cache is an optimisation: when it fails, the app answers.
    log.warn('edge cache lookup failed', { error: error instanceof Error ? error.name : 'unknown' });
    return undefined;
  });
  if (hit) {
    const ifNoneMatch = request.headers.get('If-None-Match');
    const etag = hit.headers.get('ETag');
    const notModified = ifNoneMatch !== null && etag !== null && etagMatches(ifNoneMatch, etag);
    const res = notModified
      ? new Response(null, { status: 304, headers: hit.headers })
      : new Response(hit.body, hit);
    serveEdgeCopy(res.headers, Date.now());
    if (notModified) {
      res.headers.delete('Content-Type');
      res.headers.delete('Content-Length');
    }
    res.headers.set('X-Edge-Cache', 'HIT');
    return res;
  }
  const res = await app.fetch(request, env, ctx);
  const headers = res.headers;
  const path = new URL(request.url).pathname;
  const keep = edgeLifetime(path, headers.get('Cache-Control'), headers.get('Last-Modified'), Date.now());
  if (res.status === 200 && keep > 0) {
    ctx.waitUntil(
      edge.put(request, edgeCopy(res, keep)).catch((error: unknown) => {
        log.warn('edge cache store failed', { error: error instanceof Error ? error.name : 'unknown' });
      }),
    );
  }
  return res;
}

/**
 * Settles once every coalesced read in flight has settled: a request (or cron event) waits for it
 * after answering. workerd cancels a request's outstanding I/O once it is done; a read this request
 * started and stopped waiting for (the forecast's price, after 250 ms) would then never settle, and
 * every later request of the isolate handed that same in-flight read would wait forever.
 */
function inFlightReadsSettled(deps: AppDeps): Promise<unknown> {
  return Promise.all([deps.cache.settled(), sharedReadsSettled(deps)]);
}

export default {
  fetch: handleFetch,
  async scheduled(controller, env, ctx) {
    const host = hostFor(env);
    if (!host) return;
    const { deps } = host;
    ctx.waitUntil(runScheduledJobs(deps, controller.scheduledTime).then(() => inFlightReadsSettled(deps)));
  },
} satisfies ExportedHandler<Env>;
