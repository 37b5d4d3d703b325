import { connect } from 'node:net';
import { neonConfig } from '@neondatabase/serverless';
import { type RawData, WebSocket, WebSocketServer } from 'ws';

/** A running relay: Neon's WebSocket protocol in, plain Postgres TCP out. */
export interface NeonRelay {
  port: number;
  close(): Promise<void>;
}

/** Local targets only: the relay is a test device, not an open proxy. */
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

function toBuffer(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return data;
}

/**
 * Starts a WebSocket-to-TCP relay like Neon's own proxy, minus TLS: each socket at
 * `/v2?address=host:port` is piped byte for byte to that Postgres server, so the Worker's driver
 * (`@neondatabase/serverless`) can talk to a local PostgreSQL in tests.
 */
export async function startNeonRelay(): Promise<NeonRelay> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.on('connection', (ws, request) => {
    const address = new URL(request.url ?? '/', 'http://relay').searchParams.get('address') ?? '';
    const separator = address.lastIndexOf(':');
    const host = address.slice(0, separator);
    const port = Number(address.slice(separator + 1));
    if (!LOCAL_HOSTS.has(host) || !Number.isInteger(port)) {
      ws.close(1008, 'address not allowed');
      return;
    }
    const socket = connect(port, host);
    socket.on('data', (chunk) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(chunk);
    });
    socket.on('close', () => ws.close());
    socket.on('error', () => ws.terminate());
    ws.on('message', (data) => socket.write(toBuffer(data)));
    ws.on('close', () => socket.end());
    ws.on('error', () => socket.destroy());
  });
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

/** Points the Neon driver of this process at a relay: plain WebSocket, no TLS, no pipelining. */
export function useNeonRelay(relay: NeonRelay): void {
  neonConfig.wsProxy = (host, port) => `127.0.0.1:${relay.port}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  if (typeof globalThis.WebSocket === 'undefined') {
    neonConfig.webSocketConstructor = WebSocket as unknown as typeof neonConfig.webSocketConstructor;
  }
}
