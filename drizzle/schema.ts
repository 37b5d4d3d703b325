import { bigint, doublePrecision, index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One mainnet reading per 90-second slot (SPEC decision 15). The slot start is the primary key, so
 * a slot is written once, and its b-tree is the index every history range query walks.
 */
export const mainnetSnapshots = pgTable('mainnet_snapshots', {
  slotStart: timestamp('slot_start', { withTimezone: true, mode: 'date' }).primaryKey(),
  readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
  // Imported rows (CSV) carry no block.
  blockNumber: bigint('block_number', { mode: 'number' }),
  baseFeeGwei: doublePrecision('base_fee_gwei'),
  lowGwei: doublePrecision('low_gwei').notNull(),
  averageGwei: doublePrecision('average_gwei').notNull(),
  highGwei: doublePrecision('high_gwei').notNull(),
  // Provider label (host name), `etherscan`, `backfill` or `import`; never a URL.
  source: text('source').notNull(),
});

/** One reading per L2 network per 90-second slot; (network, slot start) is the key and the range index. */
export const l2Snapshots = pgTable(
  'l2_snapshots',
  {
    network: text('network').notNull(),
    slotStart: timestamp('slot_start', { withTimezone: true, mode: 'date' }).notNull(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
    gasPriceGwei: doublePrecision('gas_price_gwei').notNull(),
    executionGasCostUsd: doublePrecision('execution_gas_cost_usd').notNull(),
    // Null where the network has no separate L1 fee (Arbitrum, Polygon).
    l1DataFeeUsd: doublePrecision('l1_data_fee_usd'),
    nativeUsd: doublePrecision('native_usd').notNull(),
  },
  // Retention pruning deletes by slot start across all networks.
  (table) => [
    primaryKey({ columns: [table.network, table.slotStart] }),
    index('l2_snapshots_slot_idx').on(table.slotStart),
  ],
);
