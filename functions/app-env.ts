import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../lib/deps';
import type { AnswerRoutes } from '../lib/http/cached-answer';
import type { RenderedJsonCache } from '../lib/http/cached-json';

/**
 * Hono environment of the app: every handler reads its dependencies from `c.var.deps`, and `rendered`
 * holds the app's rendered cacheable answers (renderedJson), `routes` the Node host's fast-path index of
 * answered URLs (absent in the Worker). It lives apart from `app.ts` so that the
 * endpoint modules `app.ts` mounts need not import `app.ts` back.
 */
export type AppEnv = {
  Variables: { deps: AppDeps; rendered: RenderedJsonCache; routes?: AnswerRoutes };
};
export type ApiApp = OpenAPIHono<AppEnv>;
