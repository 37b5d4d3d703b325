import { bigint, doublePrecision, index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** One mainnet reading per 90-second slot; the slot start is the primary key, so a slot is written once. */
export const mainnetSnapshots = pgTable('mainnet_snapshots', {
  slotStart: timestamp('slot_start', { withTimezone: true, mode: 'date' }).primaryKey(),
  readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
  blockNumber: bigint('block_number', { mode: 'number' }),
  baseFeeGwei: doublePrecision('base_fee_gwei'),
  lowGwei: doublePrecision('low_gwei').notNull(),
  averageGwei: doublePrecision('average_gwei').notNull(),
  highGwei: doublePrecision('high_gwei').notNull(),
  source: text('source').notNull(),
});

/** One reading per L2 network per 90-second slot. */
export const l2Snapshots = pgTable(
  'l2_snapshots',
  {
    network: text('network').notNull(),
    slotStart: timestamp('slot_start', { withTimezone: true, mode: 'date' }).notNull(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
    gasPriceGwei: doublePrecision('gas_price_gwei').notNull(),
    executionGasCostUsd: doublePrecision('execution_gas_cost_usd'),
    l1DataFeeUsd: doublePrecision('l1_data_fee_usd'),
    nativeUsd: doublePrecision('native_usd'),
  },
  (table) => [primaryKey({ columns: [table.network, table.slotStart] }), index('l2_snapshots_slot_idx').on(table.slotStart)],
);
