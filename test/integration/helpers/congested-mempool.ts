import { READING_PERCENTILES } from '../../../lib/oracle/fee-history';
import { estimateWait, SLOT_SECONDS } from '../../../lib/oracle/wait-model';
import { parseFeeHistory } from '../../../lib/upstream/fee-history-wire';
import { createRandom } from '../../helpers/random';
import type { EdrNode } from './edr-node';

/** What one run of the congested mempool measured: how often the real wait was within each prediction. */
export interface Calibration {
  transactions: number;
  /** Share of transactions whose real wait was <= the predicted p50 (ideal: about 0.5 or more). */
  withinP50: number;
  /** Share within the predicted p90 (ideal: about 0.9 or more). */
  withinP90: number;
  /** Same, per third of the tip distribution (cheapest third first). */
  byTipThird: { withinP50: number; withinP90: number; transactions: number }[];
  /** Transactions still pending at the end (counted as beyond their prediction). */
  pending: number;
}

export interface MempoolScenario {
  /** Effective tips (wei) arrivals draw from, e.g. the real tips of mainnet blocks. */
  tips: readonly bigint[];
  /** Transfers per block at the gas limit. */
  capacity: number;
  /** Arrivals per block: the mean and the relative swing of a 30-block cycle. */
  meanArrivals: number;
  swing: number;
  warmupBlocks: number;
  measuredBlocks: number;
  /** Blocks mined after the measured ones (arrivals continue) before pending transactions are counted. */
  tailBlocks: number;
  seed: number;
}

const toHex = (value: bigint | number) => `0x${value.toString(16)}`;

/** Poisson-distributed count (Knuth), enough for small means. */
function poisson(mean: number, next: () => number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = next(); p > limit; p *= next()) k += 1;
  return k;
}

interface Sent {
  hash: string;
  tip: bigint;
  sentAtHead: number;
  p50: number;
  p90: number;
}

/**
 * Runs a congested mempool on an EDR node (automine off, blocks at the gas limit of `capacity`
 * transfers, EDR building blocks by tip): every block, a varying number of transfers from fresh
 * senders arrive at tips drawn from `tips`; each is given the wait model's p50/p90 from the node's
 * `eth_feeHistory` at the moment it is sent, exactly as the service would, and its real wait (blocks
 * until inclusion x 12 s) is compared with them.
 */
export async function runCongestedMempool(edr: EdrNode, scenario: MempoolScenario): Promise<Calibration> {
  const { provider } = edr;
  const next = createRandom(scenario.seed);
  await provider.request({ method: 'evm_setAutomine', params: [false] });
  const sent: Sent[] = [];
  let senders = 0;
  const totalBlocks = scenario.warmupBlocks + scenario.measuredBlocks + scenario.tailBlocks;
  for (let block = 0; block < totalBlocks; block += 1) {
    const head = Number((await provider.request({ method: 'eth_blockNumber' })) as string);
    const measured =
      block >= scenario.warmupBlocks && block < scenario.warmupBlocks + scenario.measuredBlocks;
    const history = measured
      ? parseFeeHistory(
          await provider.request({
            method: 'eth_feeHistory',
            params: ['0x14', 'latest', [...READING_PERCENTILES]],
          }),
        )
      : undefined;
    const rate = scenario.meanArrivals * (1 + scenario.swing * Math.sin((2 * Math.PI * block) / 30));
    const arrivals = poisson(rate, next);
    for (let i = 0; i < arrivals; i += 1) {
      const tip = scenario.tips[Math.floor(next() * scenario.tips.length)] ?? 0n;
      senders += 1;
      const from = `0x${(0x100000 + senders).toString(16).padStart(40, '0')}`;
      await provider.request({ method: 'hardhat_setBalance', params: [from, toHex(10n ** 20n)] });
      await provider.request({ method: 'hardhat_impersonateAccount', params: [from] });
      const hash = (await provider.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from,
            to: from,
            gas: toHex(21_000),
            maxPriorityFeePerGas: toHex(tip),
            // Far above any base fee this run reaches, so the tip alone decides the order.
            maxFeePerGas: toHex(tip + 10n ** 14n),
          },
        ],
      })) as string;
      if (history) {
        const wait = estimateWait(history, 0, tip);
        sent.push({ hash, tip, sentAtHead: head, ...wait });
      }
    }
    await provider.request({ method: 'evm_mine', params: [] });
  }
  return await scoreWaits(edr, sent);
}

async function scoreWaits(edr: EdrNode, sent: readonly Sent[]): Promise<Calibration> {
  const waits: { tx: Sent; wait: number }[] = [];
  let pending = 0;
  for (const tx of sent) {
    const receipt = (await edr.provider.request({
      method: 'eth_getTransactionReceipt',
      params: [tx.hash],
    })) as {
      blockNumber: string;
    } | null;
    if (!receipt) pending += 1;
    const wait = receipt
      ? (Number(receipt.blockNumber) - tx.sentAtHead) * SLOT_SECONDS
      : Number.POSITIVE_INFINITY;
    waits.push({ tx, wait });
  }
  const share = (list: typeof waits) => ({
    transactions: list.length,
    withinP50: list.filter((w) => w.wait <= w.tx.p50).length / list.length,
    withinP90: list.filter((w) => w.wait <= w.tx.p90).length / list.length,
  });
  const byTip = [...waits].sort((a, b) => (a.tx.tip < b.tx.tip ? -1 : a.tx.tip > b.tx.tip ? 1 : 0));
  const third = Math.ceil(byTip.length / 3);
  const all = share(waits);
  return {
    transactions: all.transactions,
    withinP50: all.withinP50,
    withinP90: all.withinP90,
    byTipThird: [0, 1, 2].map((i) => share(byTip.slice(i * third, (i + 1) * third))),
    pending,
  };
}
