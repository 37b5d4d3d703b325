import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHardhatRuntimeEnvironment } from 'hardhat/hre';
import type { HardhatUserConfig } from 'hardhat/types/config';
import type { EthereumProvider } from 'hardhat/types/providers';

/** A running in-process OP Stack chain (Hardhat 3's EDR) reachable over JSON-RPC HTTP. */
export interface EdrOpNode {
  /** JSON-RPC endpoint, as a real provider's URL would be configured. */
  url: string;
  /** The EIP-1193 provider behind it, for direct calls from the test. */
  provider: EthereumProvider;
  chainId: number;
  /** How many JSON-RPC requests the HTTP server answered, by method. */
  requests: Map<string, number>;
  close(): Promise<void>;
}

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Starts an EDR chain with `chainType: 'op'`, which carries the real OP Stack predeploys (the
 * GasPriceOracle among them), and serves it over HTTP so the project's code reaches it like any
 * provider. Nothing is compiled: the runtime is built from an inline config.
 */
export async function startEdrOpNode(
  options: { chainId?: number; initialBaseFeePerGas?: bigint } = {},
): Promise<EdrOpNode> {
  const chainId = options.chainId ?? 31337;
  const config: HardhatUserConfig = {
    networks: {
      edrOp: {
        type: 'edr-simulated',
        chainType: 'op',
        chainId,
        ...(options.initialBaseFeePerGas === undefined
          ? {}
          : { initialBaseFeePerGas: options.initialBaseFeePerGas }),
      },
    },
  };
  const hre = await createHardhatRuntimeEnvironment(config, {}, PROJECT_ROOT);
  const connection = await hre.network.connect({ network: 'edrOp', chainType: 'op' });
  const provider = connection.provider;
  const requests = new Map<string, number>();

  const answer = async (message: unknown) => {
    const {
      id = null,
      method,
      params,
    } = (message ?? {}) as { id?: unknown; method?: string; params?: unknown[] };
    if (typeof method !== 'string')
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    requests.set(method, (requests.get(method) ?? 0) + 1);
    try {
      const result = await provider.request({ method, params: params ?? [] });
      return { jsonrpc: '2.0', id, result };
    } catch (error) {
      const { code, message: text, data } = error as { code?: number; message?: string; data?: unknown };
      return { jsonrpc: '2.0', id, error: { code: code ?? -32603, message: text ?? String(error), data } };
    }
  };

  const server: Server = createServer(async (req, res) => {
    try {
      const body: unknown = JSON.parse(await readBody(req));
      const reply = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply));
    } catch {
      res
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    provider,
    chainId,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await connection.close();
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
