import type { Context, TypedResponse } from 'hono';
import type { AppDeps } from '../deps';
import { sharedReadVersion } from '../store/shared-read';
import {
  answerFor,
  type CachedJsonOptions,
  cacheKeyOf,
  type RenderedAnswer,
  type RenderedJson,
  type RenderedJsonCache,
  renderedJson,
  respondWith,
} from './cached-json';
import { buildEnvelope, type Envelope, publicBaseUrl } from './envelope';

/**
 * A cacheable endpoint in two steps: `read` gets its domain value from a (cached) service, `present`
 * makes the body and renderedJson's options from it. Both hosts serve it through the app; the split
 * lets the Node host answer a URL the app has already routed and validated without running the app
 * again (AnswerRoutes), through the very same steps.
 */
export interface CachedAnswer<Q, V, B> {
  read(deps: AppDeps, query: Q): Promise<V>;
  present(value: V, baseUrl: string): { body: B | (() => B); options: CachedJsonOptions };
}

/**
 * The usual cacheable endpoint: the envelope (its citation dated by `updatedAt`) and `toBody(value)`,
 * with Last-Modified at `updatedAt` and the path's Cache-Control unless `cacheControl` says otherwise;
 * the body is built again only when the service hands back another value (or the base address changes).
 */
export function envelopedAnswer<Q, V, B extends object>(spec: {
  read: (deps: AppDeps, query: Q) => Promise<V>;
  toBody: (value: V) => B;
  updatedAt: (value: V) => Date | number | string;
  cacheControl?: (value: V) => string | undefined;
}): CachedAnswer<Q, V, Envelope & B> {
  return {
    read: spec.read,
    present(value, baseUrl) {
      const updatedAt = spec.updatedAt(value);
      return {
        body: () => ({ ...buildEnvelope(updatedAt, baseUrl), ...spec.toBody(value) }),
        options: { basis: [value, baseUrl], updatedAt, cacheControl: spec.cacheControl?.(value) },
      };
    },
  };
}

/** What answering one URL again takes: its endpoint, its validated query and its rendered-cache key. */
export interface AnswerRoute {
  // biome-ignore lint/suspicious/noExplicitAny: routes of every endpoint share one index
  answer: CachedAnswer<any, any, unknown>;
  query: unknown;
  key: string;
  path: string;
}

/**
 * The Node host's fast path: request URLs the app has answered with a 200 or 304 through a
 * CachedAnswer, so the same URL is answered again without Hono's routing, middleware and query
 * validation (it is known valid: validation depends on the URL alone). Every answer still reads its
 * service and is made from the shared rendered cache, so it is the answer the app would give at that
 * moment. The index remembers URLs, and for `answerNow` each one's last rendered answer.
 *
 * `answerNow` goes one step further and answers without waiting for anything: it serves the rendered
 * answer the last read of that URL produced while nothing it could depend on has changed: no value
 * stored or forgotten in the coalescing cache, no new shared reading held or asked for, and for at
 * most HOT_MS from the start of that read (so a refresh that falls due by time alone, or a figure that
 * counts time such as a stale price's age, is seen within that long; a clock set back before that
 * start ends it at once); a failed read of any URL ends every last answer. It takes the URL and the
 * If-None-Match header as they arrived and gives the status, headers and body, so the Node host
 * writes the answer on Node's own response in the turn that parsed the request, without making a
 * Request or a Response (lib/node/host.ts).
 */
export interface AnswerRoutes {
  /** The rendered answers, shared with the app. */
  rendered: RenderedJsonCache;
  remember(url: string, route: AnswerRoute): void;
  /** Answers a GET of a remembered URL at once from its last answer, if that is still current; else undefined. */
  answerNow(url: string, ifNoneMatch: string | undefined, deps: AppDeps): RenderedAnswer | undefined;
  /** Answers a GET of a remembered URL; undefined when the app must answer (unknown URL, failed read). */
  answer(request: Request, deps: AppDeps): Promise<Response | undefined>;
  /** The read the fast path already made for `request`, taken once, so a request never reads twice. */
  takePrefetched(request: Request): Promise<unknown> | undefined;
  /** How many requests the fast path has answered (the others went through the app). */
  answered(): number;
}

/** How long a URL's last answer is served without reading its service again (see AnswerRoutes). */
export const HOT_MS = 100;

/** The last answer of a URL and what it was current for. */
interface HotAnswer {
  entry: RenderedJson;
  /** Current from the start of its read (a clock set back before it ends it) until `until`. */
  from: number;
  until: number;
  cacheVersion: number;
  sharedVersion: number;
}

/** Creates the index; at most `maxUrls` URLs (the oldest forgotten first), since any client can vary a URL. */
export function createAnswerRoutes(rendered: RenderedJsonCache, maxUrls = 1_000): AnswerRoutes {
  const routes = new Map<string, AnswerRoute>();
  const hot = new Map<string, HotAnswer>();
  const prefetched = new WeakMap<Request, Promise<unknown>>();
  let answered = 0;
  return {
    rendered,
    remember(url, route) {
      if (routes.has(url)) return;
      routes.set(url, route);
      if (routes.size > maxUrls) {
        const oldest = routes.keys().next().value as string;
        routes.delete(oldest);
        hot.delete(oldest);
      }
    },
    answerNow(url, ifNoneMatch, deps) {
      const last = hot.get(url);
      const now = deps.now();
      if (
        !last ||
        now < last.from ||
        now >= last.until ||
        last.cacheVersion !== deps.cache.version() ||
        last.sharedVersion !== sharedReadVersion(deps)
      )
        return undefined;
      answered += 1;
      return answerFor(last.entry, ifNoneMatch);
    },
    async answer(request, deps) {
      const route = routes.get(request.url);
      if (!route) return undefined;
      // Taken before the read: anything that changes during it makes this answer not current, and
      // the answer is kept HOT_MS from the read's start, however long the read took.
      const from = deps.now();
      const since = {
        from,
        until: from + HOT_MS,
        cacheVersion: deps.cache.version(),
        sharedVersion: sharedReadVersion(deps),
      };
      const read = route.answer.read(deps, route.query);
      try {
        const entry = renderedEntry(rendered, route, await read, deps, request.url);
        // Only for a URL still remembered: one forgotten during the read must not come back here.
        if (routes.get(request.url) === route) hot.set(request.url, { entry, ...since });
        answered += 1;
        return respondWith(entry, request.headers.get('If-None-Match'));
      } catch {
        // The app answers instead (a problem+json for a failed read), with the read already made.
        // A failed read changes no version, and other URLs may share what failed: no last answer
        // is served again until each URL has been read anew.
        hot.clear();
        prefetched.set(request, read);
        return undefined;
      }
    },
    takePrefetched(request) {
      const read = prefetched.get(request);
      prefetched.delete(request);
      return read;
    },
    answered: () => answered,
  };
}

type CachedEnv = { Variables: { deps: AppDeps; rendered: RenderedJsonCache; routes?: AnswerRoutes } };

/** Serves a CachedAnswer inside the app (after routing and validation) and remembers the URL for the fast path. */
export async function serveCached<Q, V, B, E extends CachedEnv>(
  // biome-ignore lint/suspicious/noExplicitAny: any route path and input
  c: Context<E, any, any>,
  answer: CachedAnswer<Q, V, B>,
  query: Q,
): Promise<Response & TypedResponse<B, 200, 'json'>> {
  const { deps, routes } = c.var;
  const value = await ((routes?.takePrefetched(c.req.raw) as Promise<V> | undefined) ??
    answer.read(deps, query));
  const route: AnswerRoute = { answer, query, key: cacheKeyOf(c), path: c.req.path };
  const entry = renderedEntry(c.var.rendered, route, value, deps, c.req.url);
  const res = respondWith(entry, c.req.header('If-None-Match'));
  routes?.remember(c.req.url, route);
  return res as Response & TypedResponse<B, 200, 'json'>;
}

/** The one way a CachedAnswer becomes a rendered answer, in the app and on the fast path alike. */
function renderedEntry(
  rendered: RenderedJsonCache,
  route: AnswerRoute,
  value: unknown,
  deps: AppDeps,
  url: string,
): RenderedJson {
  const { body, options } = route.answer.present(value, publicBaseUrl(deps.config.publicBaseUrl, url));
  return renderedJson(rendered, route.key, route.path, body, options);
}
