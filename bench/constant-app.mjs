// The reference of `npm run bench -- throughput`: a Hono app on @hono/node-server answering, for each
// path, one constant JSON body (the bytes the host served for that path, from the file named in the
// first argument): the least an endpoint of that size can cost on this stack. Prints `ready <port>`.
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const bodies = new Map(Object.entries(JSON.parse(readFileSync(process.argv[2], 'utf8'))));
const app = new Hono();
app.get('*', (c) => c.body(bodies.get(c.req.path) ?? '{}', 200, { 'Content-Type': 'application/json' }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  console.log(`ready ${info.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
