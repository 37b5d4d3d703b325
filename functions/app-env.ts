import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../lib/deps';

/**
 * Hono environment of the app: every handler reads its dependencies from `c.var.deps`. It lives apart
 * from `app.ts` so that the endpoint modules `app.ts` mounts need not import `app.ts` back.
 */
export type AppEnv = { Variables: { deps: AppDeps } };
export type ApiApp = OpenAPIHono<AppEnv>;
