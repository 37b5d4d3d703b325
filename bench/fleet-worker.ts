// One OS process of `npm run bench -- fleet`: hosts app instances, each with its own caches and state
// like a Worker isolate, behind one HTTP server. The `x-instance` header picks the instance: `s<N>` one
// reading through the shared Redis (this service's design), `i<N>` one of the per-isolate design. Every
// upstream read is time-stamped per kind and design and reported to the parent over IPC.
import { serve } from '@hono/node-server';
import { createLogger } from '../lib/log';
import {
  countingFetch,
  createFleetInstance,
  emptyCounts,
  type FleetInstance,
  type ReadKind,
} from '../test/helpers/fleet';

interface Start {
  type: 'start';
  env: Record<string, string>;
  shared: number;
  perIsolate: number;
}

type Design = 'shared' | 'perIsolate';
const readTimes: Record<Design, Record<ReadKind, number[]>> = { shared: times(), perIsolate: times() };

function times(): Record<ReadKind, number[]> {
  return Object.fromEntries(Object.keys(emptyCounts()).map((kind) => [kind, []])) as unknown as Record<
    ReadKind,
    number[]
  >;
}

/** A fetch that counts through countingFetch and stamps each counted read with its time. */
function stampingFetch(env: Record<string, string>, design: Design): typeof fetch {
  const counts = emptyCounts();
  const inner = countingFetch(env, counts);
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const before = { ...counts };
    const promise = inner(input, init);
    for (const kind of Object.keys(counts) as ReadKind[])
      if (counts[kind] !== before[kind]) readTimes[design][kind].push(Date.now());
    return promise;
  }) as typeof fetch;
}

function build(message: Start): Map<string, FleetInstance> {
  const quiet = createLogger(() => {});
  const instances = new Map<string, FleetInstance>();
  const add = (prefix: string, count: number, design: Design) => {
    for (let i = 0; i < count; i++) {
      const fleetFetch = stampingFetch(message.env, design);
      instances.set(
        `${prefix}${i}`,
        createFleetInstance(message.env, {
          shared: design === 'shared',
          fetch: fleetFetch,
          overrides: { log: quiet },
        }),
      );
    }
  };
  add('s', message.shared, 'shared');
  add('i', message.perIsolate, 'perIsolate');
  return instances;
}

process.on('message', (message: Start | { type: 'report' } | { type: 'stop' }) => {
  if (message.type === 'start') {
    const instances = build(message);
    const server = serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request) => {
        const member = instances.get(request.headers.get('x-instance') ?? '');
        if (!member) return new Response('unknown instance', { status: 421 });
        const { pathname, search } = new URL(request.url);
        return member.request(pathname + search);
      },
    });
    server.once('listening', () => {
      const { port } = server.address() as { port: number };
      process.send?.({ type: 'ready', port });
    });
  } else if (message.type === 'report') {
    process.send?.({ type: 'report', readTimes });
  } else {
    process.exit(0);
  }
});
