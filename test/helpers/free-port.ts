import { createServer } from 'node:net';

/** Returns a loopback TCP port nobody listens on right now (for servers that cannot report port 0). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A loopback URL nothing listens on: a provider that refuses connections. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await findFreePort()}/rpc`;
}

/**
 * Returns a free loopback port below the kernel's ephemeral range (32768 and up), for a server that is
 * stopped and started again on the same port: no outgoing connection or port-0 server can take it in
 * between.
 */
export async function findStablePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port between 20000 and 30000');
}
