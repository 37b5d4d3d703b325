import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSnapshotJob } from '../../cron/snapshot-job';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { listSlotStarts, SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { createTestDeps } from '../helpers/deps';
import { L2_NAMES, startUpstreams, type Upstreams } from '../upstreams';
import { queryRows } from './helpers/history-engines';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

describe('Cron Trigger ticks every 60 s against 90-second slots', () => {
  it('put at least one and at most two ticks in every slot, whatever the phase between the grids', () => {
    // The two grids repeat together every 180 s, so phases in [0, 180 s) cover every case.
    for (let phase = 0; phase < 180_000; phase += 250) {
      const ticks = Array.from({ length: 1_440 }, (_, i) => phase + i * MINUTE_MS);
      const perSlot = new Map<number, number>();
      for (const tick of ticks) perSlot.set(slotStartOf(tick), (perSlot.get(slotStartOf(tick)) ?? 0) + 1);
      const slots = listSlotStarts(slotStartOf(ticks[0] as number), (ticks.at(-1) as number) + 1);
      expect(slots.map((slot) => perSlot.get(slot) ?? 0).every((n) => n === 1 || n === 2)).toBe(true);
    }
  });
});

describe('snapshot job over a simulated day of Cron Trigger ticks', () => {
  // A UTC midnight is both a minute and a slot boundary (86,400 s = 960 x 90 s), as on the real cron.
  const dayStart = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
  let clockMs = dayStart;
  const now = () => clockMs;
  let up: Upstreams;
  let engine: DatabaseEngine;

  beforeAll(async () => {
    [up, engine] = await Promise.all([startUpstreams({ now }), openDatabase({ kind: 'pglite' })]);
    await engine.migrate();
  });
  afterAll(async () => {
    await up?.close();
    await engine?.close();
  });

  it('writes exactly 960 mainnet slots and 960 per L2 network, with no gap', {
    timeout: 240_000,
  }, async () => {
    const deps = createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: '1000' }, { now, withDb: engine.withDb });
    const outcomes = { written: 0, exists: 0, skipped: 0 };
    for (let tick = dayStart; tick < dayStart + DAY_MS; tick += MINUTE_MS) {
      clockMs = tick;
      const result = await runSnapshotJob(deps, tick);
      outcomes[result.mainnet] += 1;
    }
    expect(outcomes).toEqual({ written: 960, exists: 480, skipped: 0 });

    const expected = listSlotStarts(dayStart, dayStart + DAY_MS);
    expect(expected).toHaveLength(960);
    const mainnet = await engine.withDb((db) =>
      queryRows(db, sql`SELECT slot_start, read_at FROM mainnet_snapshots ORDER BY slot_start`),
    );
    expect(mainnet.map((row) => new Date(row.slot_start as string).getTime())).toEqual(expected);
    for (const row of mainnet) {
      const slot = new Date(row.slot_start as string).getTime();
      expect(new Date(row.read_at as string).getTime() - slot).toBeLessThan(SLOT_MS);
    }
    for (const network of L2_NAMES) {
      const rows = await engine.withDb((db) =>
        queryRows(
          db,
          sql`SELECT slot_start FROM l2_snapshots WHERE network = ${network} ORDER BY slot_start`,
        ),
      );
      expect(rows.map((row) => new Date(row.slot_start as string).getTime())).toEqual(expected);
    }
  });
});
