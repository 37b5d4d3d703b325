import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHardhatRuntimeEnvironment } from 'hardhat/hre';
import type { EdrNetworkUserConfig, HardhatUserConfig } from 'hardhat/types/config';
import type { EthereumProvider } from 'hardhat/types/providers';
import { computeMainnetHeadFloor } from '../../../lib/upstream/rpc-mainnet-gas';

/** A running in-process chain (Hardhat 3's EDR) reachable over JSON-RPC HTTP like any provider. */
export interface EdrNode {
  /** JSON-RPC endpoint, configured like a real provider's URL. */
  url: string;
  /** The EIP-1193 provider behind it, for the test's own transactions, mining and direct calls. */
  provider: EthereumProvider;
  chainId: number;
  /** How many JSON-RPC requests the HTTP server answered, by method. */
  requests: Map<string, number>;
  /** The methods each HTTP request carried (a batch: several), in order; tests may clear it. */
  httpRequests: string[][];
  close(): Promise<void>;
}

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Starts an EDR chain of the given type (`l1`, or `op` with the real OP Stack predeploys) and serves
 * it over HTTP, single calls and batches. The runtime is built from an inline config: nothing is
 * compiled and nothing is downloaded.
 */
export async function startEdrNode(
  chainType: 'l1' | 'op',
  options: { chainId: number; atMainnetHeight?: boolean } & Partial<
    Pick<EdrNetworkUserConfig, 'blockGasLimit' | 'initialBaseFeePerGas' | 'hardfork'>
  >,
): Promise<EdrNode> {
  const { chainId, atMainnetHeight = chainId === 1, ...extra } = options;
  const config: HardhatUserConfig = {
    networks: { edr: { type: 'edr-simulated', chainType, chainId, ...extra } },
  };
  const hre = await createHardhatRuntimeEnvironment(config, {}, PROJECT_ROOT);
  const connection = await hre.network.connect({ network: 'edr', chainType });
  const provider = connection.provider;
  if (atMainnetHeight) {
    // A mainnet chain (by default, chain id 1) starts at a height mainnet can have now (the service
    // rejects a fresh head far below it as another chain's): empty blocks at once, stamped with the
    // chain's start time.
    const floor = computeMainnetHeadFloor(Date.now()) ?? 0;
    await provider.request({ method: 'hardhat_mine', params: [`0x${(floor + 10).toString(16)}`, '0x0'] });
  }
  const requests = new Map<string, number>();
  const httpRequests: string[][] = [];

  const answer = async (message: unknown) => {
    const {
      id = null,
      method,
      params,
    } = (message ?? {}) as { id?: unknown; method?: unknown; params?: unknown[] };
    if (typeof method !== 'string')
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    requests.set(method, (requests.get(method) ?? 0) + 1);
    try {
      return { jsonrpc: '2.0', id, result: await provider.request({ method, params: params ?? [] }) };
    } catch (error) {
      const { code, message: text, data } = error as { code?: number; message?: string; data?: unknown };
      return { jsonrpc: '2.0', id, error: { code: code ?? -32603, message: text ?? String(error), data } };
    }
  };

  const server = createServer(async (req, res) => {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify(parseError));
      return;
    }
    const methodOf = (message: unknown) => String((message as { method?: unknown } | null)?.method);
    httpRequests.push(Array.isArray(body) ? body.map(methodOf) : [methodOf(body)]);
    const reply = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    provider,
    chainId,
    requests,
    httpRequests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await connection.close();
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
