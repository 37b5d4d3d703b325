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
