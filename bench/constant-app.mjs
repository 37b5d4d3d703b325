// The reference of `npm run bench -- throughput`: a Hono app on @hono/node-server answering, per path,
// one constant JSON body: the bytes the host served there (from the file named in the first argument).
// Two forms: under `/bare/...` with a Content-Type only, the least any endpoint of that size can cost;
// elsewhere with the very headers the host sends (CORS, the informational headers, Cache-Control,
// ETag, Last-Modified; SPEC.md requires them) and a 304 on a matching If-None-Match, the least this
// API's answer can cost. Prints `ready <port>`.
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

/** @type {Map<string, { body: string, headers: Record<string, string>, notModified: Record<string, string> }>} */
const pages = new Map(Object.entries(JSON.parse(readFileSync(process.argv[2], 'utf8'))));
const JSON_ONLY = { 'Content-Type': 'application/json' };
const app = new Hono();
app.get('/bare/*', (c) => c.body(pages.get(c.req.path.slice(5))?.body ?? '{}', 200, JSON_ONLY));
app.get('*', (c) => {
  const page = pages.get(c.req.path);
  if (!page) return c.body('{}', 200, JSON_ONLY);
  if (c.req.header('If-None-Match') === page.headers.etag) {
    return new Response(null, { status: 304, headers: page.notModified });
  }
  return new Response(page.body, { status: 200, headers: page.headers });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  console.log(`ready ${info.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
