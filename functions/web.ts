import type { Context } from 'hono';
import { pageFile, WEB_CACHE_CONTROL } from '../lib/web/assets';
import type { ApiApp, AppEnv } from './app-env';

/**
 * Registers the pages of SPEC extension 19: `GET /` (live dashboard), `GET /docs` (API reference) and
 * their assets under `/assets/`. They are plain routes, not OpenAPI operations: `/openapi.json`
 * describes the JSON API only. CORS and the informational headers come from the app's middleware.
 */
export function registerWeb(app: ApiApp): void {
  app.get('/', servePage);
  app.get('/docs', servePage);
  app.get('/assets/*', servePage);
}

/** Answers from the host's web assets, with one Cache-Control on both hosts; unknown files fall to 404. */
async function servePage(c: Context<AppEnv>) {
  // The same allow-list on both hosts: the pages and plain file names under /assets/, nothing else.
  if (!pageFile(c.req.path)) return c.notFound();
  const res = await c.var.deps.web?.serve(c.req.path, c.req.raw);
  if (!res) return c.notFound();
  const out = new Response(res.body, res);
  out.headers.set('Cache-Control', WEB_CACHE_CONTROL);
  out.headers.set('X-Content-Type-Options', 'nosniff');
  return out;
}
