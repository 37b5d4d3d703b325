import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHardhatRuntimeEnvironment } from 'hardhat/hre';
import type { HardhatUserConfig } from 'hardhat/types/config';
import type { EthereumProvider } from 'hardhat/types/providers';

/** A running in-process Ethereum L1 node (Hardhat 3's EDR) reachable over JSON-RPC HTTP. */
export interface EdrRpcServer {
  /** JSON-RPC endpoint, configured like any provider's URL. */
  url: string;
  /** The EIP-1193 provider behind it, for the test's own transactions and mining. */
  provider: EthereumProvider;
  close(): Promise<void>;
}

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Starts an EDR L1 chain (chain id 1 by default, so the mainnet pool accepts it) and serves it over
 * HTTP, single calls and batches. The runtime is built from an inline config; nothing is compiled.
 */
export async function startEdrRpcServer(
  options: { chainId?: number; blockGasLimit?: bigint } = {},
): Promise<EdrRpcServer> {
  const network = { type: 'edr-simulated', chainType: 'l1', chainId: options.chainId ?? 1 } as const;
  const config: HardhatUserConfig = {
    networks: {
      edrL1:
        options.blockGasLimit === undefined ? network : { ...network, blockGasLimit: options.blockGasLimit },
    },
  };
  const hre = await createHardhatRuntimeEnvironment(config, {}, PROJECT_ROOT);
  const connection = await hre.network.connect({ network: 'edrL1', chainType: 'l1' });
  const provider = connection.provider;

  const answer = async (message: unknown) => {
    const {
      id = null,
      method,
      params,
    } = (message ?? {}) as { id?: unknown; method?: unknown; params?: unknown[] };
    if (typeof method !== 'string')
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    try {
      return { jsonrpc: '2.0', id, result: await provider.request({ method, params: params ?? [] }) };
    } catch (error) {
      const { code, message: text } = error as { code?: number; message?: string };
      return { jsonrpc: '2.0', id, error: { code: code ?? -32603, message: text ?? 'error' } };
    }
  };

  const server: Server = createServer(async (req, res) => {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    const reply = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    provider,
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
