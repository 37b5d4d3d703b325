import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { startNodeHost } from '../../lib/node/host';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { slotStartOf } from '../../lib/store/slots';
import { startUpstreams, type Upstreams } from '../upstreams';
import { queryRows } from './helpers/history-engines';

let up: Upstreams;
let engine: DatabaseEngine;

beforeAll(async () => {
  [up, engine] = await Promise.all([startUpstreams(), openDatabase({ kind: 'pglite' })]);
  await engine.migrate();
});
afterAll(async () => {
  await up?.close();
  await engine?.close();
});

describe('Node host scheduler', () => {
  it('writes the current slot at start-up through the scheduled jobs', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    // A run begun in a slot's last seconds may read after the slot ends and rightly store nothing for
    // it, and the next slot's run never comes once the host closes: start in the next slot then (a CI
    // run that started 330 ms before a boundary stored no row).
    const intoSlot = Date.now() % 90_000;
    if (intoSlot > 85_000) await new Promise((resolve) => setTimeout(resolve, 90_000 - intoSlot + 300));
    const startedAt = Date.now();
    const host = await startNodeHost(
      { ...up.env, PORT: '0' },
      { log: createLogger((line) => lines.push(line)), deps: { withDb: engine.withDb } },
    );
    // Closing waits for the run in progress, so the start-up snapshot has settled afterwards.
    await host.close();
    const rows = await engine.withDb((db) =>
      queryRows(
        db,
        sql`SELECT slot_start FROM mainnet_snapshots UNION ALL SELECT slot_start FROM l2_snapshots`,
      ),
    );
    expect(rows).toHaveLength(5);
    const slots = new Set(rows.map((row) => new Date(row.slot_start as string).getTime()));
    expect(slots.size).toBe(1);
    const [slot] = [...slots];
    // The tick's slot: the one holding the start, or the next one if a boundary passed meanwhile.
    expect([slotStartOf(startedAt), slotStartOf(startedAt) + 90_000]).toContain(slot);
    expect(lines.some((line) => line.includes('scheduled run') && line.includes('"failed":0'))).toBe(true);
  });
});
