// Known prices and L2 fees that tests set on the simulators, so that served figures can be checked
// to the digit. `reset()` clears them.
import { parseGwei } from 'viem';
import type { OperatorFeeState } from './chain-profiles';
import { L2_NAMES, type L2Name, type Upstreams } from './index';

/** USD per token that every price source quotes. */
export const KNOWN_USD = { ETH: 3012.5, POL: 0.2345 } as const;
/** Each L2 network's gas price in wei: 0.001234567 gwei on Optimism, so sub-gwei digits must survive. */
export const KNOWN_L2_GAS_WEI: Readonly<Record<L2Name, bigint>> = {
  arbitrum: parseGwei('0.0103'),
  optimism: 1_234_567n,
  base: parseGwei('0.0061'),
  polygon: parseGwei('31.25'),
};
/** The OP Stack networks' L1 data fee of the representative transfer, in wei. */
export const KNOWN_OP_L1_FEE_WEI = { optimism: 41_234_567_890n, base: 9_876_543_210n } as const;
/**
 * A non-zero operator fee per OP Stack network, one per formula: on Optimism under Jovian, 21,000 x 3 x
 * 100 + 2,500,000,000 = 2,506,300,000 wei for the transfer; on Base under Isthmus, 21,000 x 1,234,567 /
 * 1e6 (25,925 after the integer division) + 1,000,000,007 = 1,000,025,932 wei.
 */
export const KNOWN_OP_OPERATOR_FEE: { optimism: OperatorFeeState; base: OperatorFeeState } = {
  optimism: { fork: 'jovian', scalar: 3, constant: 2_500_000_000n },
  base: { fork: 'isthmus', scalar: 1_234_567, constant: 1_000_000_007n },
};

export interface KnownState {
  usd?: { ETH: number; POL: number };
  /** A gas price per network for all its providers, or one per provider in priority order. */
  gasWei?: Readonly<Record<L2Name, bigint | readonly bigint[]>>;
  l1FeeWei?: { optimism: bigint; base: bigint };
  /** The OP Stack networks' operator fee; unset: the chains' default (none set, 0). */
  operatorFee?: { optimism: OperatorFeeState; base: OperatorFeeState };
}

/**
 * Sets the same prices on every price source (on a loaded machine the first read of CoinGecko can
 * miss a short budget, and the chain's next source must not change the figures), the L2 gas prices
 * and the OP Stack L1 fees (and operator fees when given).
 */
export function setKnownState(up: Upstreams, state: KnownState = {}): void {
  const { usd = KNOWN_USD, gasWei = KNOWN_L2_GAS_WEI, l1FeeWei = KNOWN_OP_L1_FEE_WEI } = state;
  for (const source of [up.coingecko, up.coinbase, up.kraken]) {
    source.setPrice('ETH', { usd: usd.ETH });
    source.setPrice('POL', { usd: usd.POL });
  }
  for (const name of L2_NAMES) {
    const prices = gasWei[name];
    up.l2[name].forEach((sim, i) => {
      const price = typeof prices === 'bigint' ? prices : prices[i];
      if (price !== undefined) sim.setGasPrice(price);
    });
  }
  for (const name of ['optimism', 'base'] as const)
    for (const sim of up.l2[name]) {
      sim.setL1Fee(l1FeeWei[name]);
      if (state.operatorFee) sim.setOperatorFee(state.operatorFee[name]);
    }
}
