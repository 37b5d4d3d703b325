/** The Layer 2 networks the service reads, by the id every request and response uses. */
export type L2NetworkId = 'arbitrum' | 'optimism' | 'base' | 'polygon';

/** How a network charges for a transaction (SPEC.md 2.10). */
export type FeeModel = 'rollup_arbitrum_nitro' | 'rollup_op_stack' | 'sidechain';

/** Whether the 21,000-gas figure plus the L1 fee covers the whole fee a wallet pays (SPEC.md decision 5). */
export type FeeCompleteness = 'execution_only' | 'full_estimate';

/** Static facts about one Layer 2 network: identity, fee model and the prose served with every reading. */
export interface L2Network {
  id: L2NetworkId;
  name: string;
  nativeToken: 'ETH' | 'POL';
  /** The chain id every provider must report before its answers are used. */
  chainId: number;
  feeModel: FeeModel;
  /**
   * True where the L1 data fee and, since Isthmus, the operator fee (served apart, paid on top of the
   * wallet fee) are read from the GasPriceOracle predeploy (OP Stack).
   */
  hasL1DataFee: boolean;
  /** Completeness of a healthy reading; an OP network whose L1 fee read failed downgrades to execution_only. */
  feeCompleteness: FeeCompleteness;
  /** Gas prices outside this range (gwei) are a broken answer, not a market move (isSaneGasPriceGwei). */
  saneGasPriceGwei: { min: number; max: number };
  /**
   * Where the priority fee comes from: `ignored` (Arbitrum: the sequencer orders first come, first
   * served and charges no tip, so 0), or `market`: the chain's own eth_maxPriorityFeePerGas, never below
   * `minPriorityFeeWei` where the chain's nodes enforce a minimum.
   */
  priorityFee: 'ignored' | 'market';
  minPriorityFeeWei?: bigint;
  /** Arbitrum: the L1 component's gas units are read from the NodeInterface. */
  hasL1GasUnits: boolean;
  /** The chain's block time (ms): how many blocks a few seconds are (a retried contract read's block). */
  blockTimeMs: number;
  blurb: string;
  /** What the fee figures of a healthy reading include. */
  feeNote: string;
}

// presentNetwork adds what the operator fee, paid on top of the wallet fee, is (or why it is unknown).
const OP_FEE_NOTE =
  'Wallet fee = L2 execution (21,000 gas x gas price) + L1 data fee, read live from the GasPriceOracle ' +
  'predeploy (getL1Fee) for a serialized EIP-1559 ETH transfer and paid in ETH.';

/** The four networks in the order every response lists them (SPEC.md 4.2 rule 5). */
export const L2_NETWORKS: readonly L2Network[] = [
  {
    id: 'arbitrum',
    name: 'Arbitrum One',
    nativeToken: 'ETH',
    chainId: 42161,
    feeModel: 'rollup_arbitrum_nitro',
    hasL1DataFee: false,
    feeCompleteness: 'execution_only',
    // ArbOS floors the L2 base fee at 0.01 gwei; congestion pricing rarely takes it past a few gwei.
    saneGasPriceGwei: { min: 0.000_001, max: 1_000 },
    priorityFee: 'ignored',
    hasL1GasUnits: true,
    blockTimeMs: 250,
    blurb: 'Arbitrum One is an optimistic rollup on the Arbitrum Nitro stack that settles to Ethereum.',
    feeNote:
      'Execution cost only: Arbitrum charges its L1 data cost as extra gas units that depend on the ' +
      'transaction size and the L1 price, so a real transfer costs somewhat more than 21,000 x gas price.',
  },
  {
    id: 'optimism',
    name: 'OP Mainnet',
    nativeToken: 'ETH',
    chainId: 10,
    feeModel: 'rollup_op_stack',
    hasL1DataFee: true,
    feeCompleteness: 'full_estimate',
    // OP Stack base fees can sit at a few thousand wei, so the floor is one wei.
    saneGasPriceGwei: { min: 0.000_000_001, max: 1_000 },
    priorityFee: 'market',
    hasL1GasUnits: false,
    blockTimeMs: 2_000,
    blurb: 'OP Mainnet (Optimism) is an optimistic rollup on the OP Stack that settles to Ethereum.',
    feeNote: OP_FEE_NOTE,
  },
  {
    id: 'base',
    name: 'Base',
    nativeToken: 'ETH',
    chainId: 8453,
    feeModel: 'rollup_op_stack',
    hasL1DataFee: true,
    feeCompleteness: 'full_estimate',
    saneGasPriceGwei: { min: 0.000_000_001, max: 1_000 },
    priorityFee: 'market',
    hasL1GasUnits: false,
    blockTimeMs: 2_000,
    blurb: 'Base is an optimistic rollup on the OP Stack, operated by Coinbase, that settles to Ethereum.',
    feeNote: OP_FEE_NOTE,
  },
  {
    id: 'polygon',
    name: 'Polygon PoS',
    nativeToken: 'POL',
    chainId: 137,
    feeModel: 'sidechain',
    hasL1DataFee: false,
    feeCompleteness: 'full_estimate',
    // Polygon enforces a minimum priority fee of tens of gwei; spikes reach thousands.
    saneGasPriceGwei: { min: 1, max: 100_000 },
    priorityFee: 'market',
    // Bor nodes refuse transactions tipping less than 25 gwei, whatever a provider's oracle suggests.
    minPriorityFeeWei: 25_000_000_000n,
    hasL1GasUnits: false,
    blockTimeMs: 1_000,
    blurb:
      'Polygon PoS is a proof-of-stake sidechain with its own validators; it checkpoints to Ethereum ' +
      'and its gas is paid in POL.',
    feeNote: 'Full fee: a sidechain pays no per-transaction L1 fee, so execution in POL is the whole cost.',
  },
];

/** Returns the network with `id`; every L2NetworkId has one. */
export function getL2Network(id: L2NetworkId): L2Network {
  const network = L2_NETWORKS.find((n) => n.id === id);
  if (!network) throw new RangeError(`unknown L2 network ${id}`);
  return network;
}

/** True when `gwei` is in the network's sane gas-price range (which excludes NaN). */
export function isSaneGasPriceGwei(network: Pick<L2Network, 'saneGasPriceGwei'>, gwei: number): boolean {
  const { min, max } = network.saneGasPriceGwei;
  return gwei >= min && gwei <= max;
}
