import { OpenAPIHono } from '@hono/zod-openapi';
import { routePath } from 'hono/route';
import type { AppDeps } from '../lib/deps';
import { DomainError } from '../lib/errors';
import type { AnswerRoutes } from '../lib/http/cached-answer';
import { createRenderedJsonCache } from '../lib/http/cached-json';
import { responseHeaders } from '../lib/http/headers';
import { invalidQueryProblem, invalidRequestProblem } from '../lib/http/params';
import { HttpProblem, problemFromDomainError, problemResponse } from '../lib/http/problem';
import type { ApiApp, AppEnv } from './app-env';
import { registerDashboard } from './dashboard';
import { registerEthPrice } from './eth-price';
import { registerForecastAccuracy } from './forecast-accuracy';
import { registerGas } from './gas';
import { registerGasHistory } from './gas-history';
import { registerGasPredictions } from './gas-predictions';
import { registerL2Gas } from './l2-gas';
import { registerL2GasHistory } from './l2-gas-history';
import { registerMcp } from './mcp';
import { registerOpenApi } from './openapi';
import { registerWeb } from './web';

/**
 * Creates the app with every endpoint; both hosts call this with their own dependencies. The Node
 * host passes `routes` (its fast path) and the app remembers there every URL it answered from cache.
 */
export function createApp(deps: AppDeps, options: { routes?: AnswerRoutes } = {}): ApiApp {
  const app: ApiApp = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      // A path parameter, header, cookie or body a route's schema refuses: a problem naming the
      // field, never the validator's own JSON 400.
      if (result.target !== 'query') {
        if (result.success) return;
        return problemResponse(invalidRequestProblem(result.target, result.error), instanceOf(c.req.url));
      }
      const declared = declaredQueryNames(app, routePath(c));
      const problem = invalidQueryProblem(
        c.req.queries(),
        declared,
        result.success ? undefined : result.error,
      );
      if (problem) return problemResponse(problem, instanceOf(c.req.url));
    },
  });

  const { routes } = options;
  const rendered = routes?.rendered ?? createRenderedJsonCache();
  app.use(
    '*',
    responseHeaders((path) => allowedMethods(app, path)),
  );
  app.use('*', (c, next) => {
    c.set('deps', deps);
    c.set('rendered', rendered);
    if (routes) c.set('routes', routes);
    return next();
  });

  // Endpoints: one register call each.
  registerOpenApi(app);
  registerMcp(app);
  registerL2Gas(app);
  registerGas(app);
  registerEthPrice(app);
  registerGasHistory(app);
  registerL2GasHistory(app);
  registerGasPredictions(app);
  registerDashboard(app);
  registerForecastAccuracy(app);
  registerWeb(app);

  app.notFound((c) => {
    const allow = allowedMethods(app, c.req.path);
    // A method the path answers that found nothing (a missing file under /assets/*) is a 404, not a 405.
    const problem =
      allow.length > 0 && !allow.includes(c.req.method)
        ? new HttpProblem(405, 'Method not allowed', `${c.req.method} is not allowed on ${c.req.path}.`, {
            allow: [...allow, 'OPTIONS'],
          })
        : new HttpProblem(404, 'Not found', `There is no resource at ${c.req.path}; see /openapi.json.`);
    return problemResponse(problem, instanceOf(c.req.url));
  });

  app.onError((error, c) => {
    if (error instanceof HttpProblem) return problemResponse(error, instanceOf(c.req.url));
    // Services speak the domain; this is where their errors become HTTP (the MCP tools do the same).
    if (error instanceof DomainError)
      return problemResponse(problemFromDomainError(error), instanceOf(c.req.url));
    deps.log.error('unhandled error', { path: c.req.path, error: String(error) });
    const problem = new HttpProblem(500, 'Internal server error', 'The request could not be completed.');
    return problemResponse(problem, instanceOf(c.req.url));
  });

  return app;
}

/**
 * The query parameters a route declares, read from its OpenAPI definition. `path` is hono's
 * (`/x/:id`); the definition has the document's (`/x/{id}`), turned into hono's here as
 * app.openapi does when it registers the route.
 */
function declaredQueryNames(app: ApiApp, path: string): string[] {
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== 'route' || honoPath(definition.route.path) !== path) continue;
    const query = definition.route.request?.query;
    if (query && 'shape' in query) return Object.keys(query.shape);
  }
  return [];
}

/** An OpenAPI path as hono routes it: `{id}` becomes `:id` (the conversion app.openapi makes). */
function honoPath(openApiPath: string): string {
  return openApiPath.includes('{') ? openApiPath.replaceAll(/\/{(.+?)}/g, '/:$1') : openApiPath;
}

/** The request path and query, the `instance` of a problem; never a host name, and never very long. */
function instanceOf(url: string): string {
  const { pathname, search } = new URL(url);
  const instance = pathname + search;
  return instance.length > 200 ? `${instance.slice(0, 200)}…` : instance;
}

/**
 * Every method some path answers (HEAD wherever GET is) and OPTIONS: what the server as a whole
 * offers to an `OPTIONS *`.
 */
export function serverMethods(app: ApiApp): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return [...methods.add('OPTIONS')];
}

/**
 * Methods a path answers: those registered for it (exactly, or under a `/*` route), HEAD wherever GET
 * is (Hono answers it); a non-empty list means a 405 rather than a 404, and is what a preflight offers.
 */
export function allowedMethods(app: ApiApp, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    const matches = route.path.endsWith('/*')
      ? path.startsWith(route.path.slice(0, -1))
      : route.path === path;
    if (!matches || route.method === 'ALL') continue;
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return [...methods];
}
