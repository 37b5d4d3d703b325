// The shared Redis of `npm run bench -- fleet` in its own OS process, as Upstash is a remote service: a
// real redis-server behind the Upstash REST bridge. The parent stops and restarts Redis, slows the bridge
// and reads its command count over IPC.
import { findStablePort } from '../test/helpers/free-port';
import { type RedisServer, startRedisServer } from '../test/integration/helpers/redis-server';
import { startUpstashBridge } from '../test/integration/helpers/upstash-bridge';

type Command =
  | { type: 'commands' }
  | { type: 'stop-redis' }
  | { type: 'start-redis' }
  | { type: 'slow'; ms: number | null }
  | { type: 'close' };

// Below the ephemeral range, so nothing takes the port while Redis is stopped.
const port = await findStablePort();
let redis: RedisServer = await startRedisServer({ port });
const bridge = await startUpstashBridge(port);
process.send?.({ type: 'ready', url: bridge.url, token: bridge.token });

process.on('message', async (message: Command) => {
  if (message.type === 'stop-redis') await redis.stop();
  else if (message.type === 'start-redis') redis = await startRedisServer({ port });
  else if (message.type === 'slow')
    bridge.fault(message.ms === null ? null : 'slow', message.ms ?? undefined);
  else if (message.type === 'close') {
    await bridge.close();
    await redis.stop();
    process.exit(0);
  }
  process.send?.({ type: 'done', commands: bridge.commands.length });
});
