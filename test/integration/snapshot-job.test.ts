import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runSnapshotJob, type SnapshotResult } from '../../cron/snapshot-job';
import type { DatabaseEngine } from '../../lib/store/engines';
import {
  insertMainnetSnapshot,
  insertMainnetSnapshots,
  type MainnetSnapshot,
} from '../../lib/store/history-writes';
import { SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { expectNoLeaks, L2_NAMES } from '../upstreams';
import {
  clearHistory,
  countRows,
  ENGINE_KINDS,
  expectSumsMatchSnapshots,
  queryRows,
} from './helpers/history-engines';
import { useJobLab } from './helpers/job-lab';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const ALL_L2 = [...L2_NAMES].sort();

const jobs = useJobLab();
const { clock } = jobs;

const depsOn = jobs.depsOn;

function expectNoSecrets(text: string): void {
  expectNoLeaks(jobs.up, text);
}

describe.each(ENGINE_KINDS)('snapshot job on %s', (kind) => {
  const engine = () => jobs.engine(kind);

  it('writes mainnet and the four L2 networks into the slot holding the tick', async () => {
    await engine().withDb(clearHistory);
    const deps = depsOn(engine());
    const firedAt = clock.ms;
    const result = await runSnapshotJob(deps, firedAt);
    const slotStart = slotStartOf(firedAt);
    expect(result).toEqual({
      slotStart,
      mainnet: 'written',
      l2: expect.any(Array),
      pruned: { mainnet: 0, l2: 0 },
      missing: [],
    });
    expect([...result.l2].sort()).toEqual(ALL_L2);

    const [row] = await engine().withDb((db) =>
      queryRows(
        db,
        sql`SELECT slot_start, read_at, source, low_gwei, average_gwei, high_gwei FROM mainnet_snapshots`,
      ),
    );
    expect(new Date(row?.slot_start as string).getTime()).toBe(slotStart);
    const readAt = new Date(row?.read_at as string).getTime();
    expect(readAt).toBeGreaterThanOrEqual(slotStart);
    expect(readAt).toBeLessThan(slotStart + SLOT_MS);
    expect(row?.source).toBe('rpc-1');
    expect(Number(row?.low_gwei)).toBeLessThanOrEqual(Number(row?.average_gwei));
    expect(Number(row?.average_gwei)).toBeLessThanOrEqual(Number(row?.high_gwei));
    const l2 = await engine().withDb((db) =>
      queryRows(db, sql`SELECT network, slot_start FROM l2_snapshots ORDER BY network`),
    );
    expect(l2.map((r) => r.network)).toEqual(ALL_L2);
    expect(l2.every((r) => new Date(r.slot_start as string).getTime() === slotStart)).toBe(true);
    expectNoSecrets(deps.logs.join('\n'));
  });

  it('writes a slot once under 200 overlapping runs, with one upstream read shared by all', async () => {
    await engine().withDb(clearHistory);
    const deps = depsOn(engine());
    const firedAt = clock.ms;
    const results: SnapshotResult[] = await Promise.all(
      Array.from({ length: 200 }, () => runSnapshotJob(deps, firedAt)),
    );
    expect(results.filter((r) => r.mainnet === 'written')).toHaveLength(1);
    expect(results.filter((r) => r.mainnet === 'exists')).toHaveLength(199);
    expect(results.flatMap((r) => r.l2).sort()).toEqual(ALL_L2);
    expect(await engine().withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(1);
    expect(await engine().withDb((db) => countRows(db, 'l2_snapshots'))).toBe(4);
    // One read for all 200: the first provider asked once. On a loaded machine its answer may take
    // longer than the 350 ms hedge delay, and the read asks the next provider too, once.
    const feeHistoryCalls = jobs.up.mainnet.map((sim) => sim.requests.byMethod.eth_feeHistory ?? 0);
    expect(feeHistoryCalls[0]).toBe(1);
    for (const calls of feeHistoryCalls) expect(calls).toBeLessThanOrEqual(1);
  });

  it('asks no upstream again once its slot is complete, and writes the next slot at the next tick', async () => {
    await engine().withDb(clearHistory);
    const deps = depsOn(engine());
    // Late in a slot, so the next slot's tick finds the services' caches still young.
    const first = slotStartOf(clock.ms);
    clock.ms = first + 85_000;
    await runSnapshotJob(deps, clock.ms);
    const asked = jobs.up.all.reduce((n, sim) => n + sim.requests.total, 0);
    clock.ms = first + 89_000;
    const again = await runSnapshotJob(deps, clock.ms);
    expect(again).toMatchObject({ slotStart: first, mainnet: 'exists', l2: [] });
    expect(jobs.up.all.reduce((n, sim) => n + sim.requests.total, 0)).toBe(asked);

    clock.ms = first + SLOT_MS + 5_000;
    const next = await runSnapshotJob(deps, clock.ms);
    expect(next).toMatchObject({ slotStart: first + SLOT_MS, mainnet: 'written' });
    expect([...next.l2].sort()).toEqual(ALL_L2);
    // Each slot holds a reading taken in it, not the previous slot's cached one.
    const rows = await engine().withDb((db) =>
      queryRows(
        db,
        sql`SELECT slot_start, read_at FROM l2_snapshots UNION ALL SELECT slot_start, read_at FROM mainnet_snapshots`,
      ),
    );
    for (const row of rows) {
      const slot = new Date(row.slot_start as string).getTime();
      const readAt = new Date(row.read_at as string).getTime();
      expect(readAt - slot).toBeGreaterThanOrEqual(0);
      expect(readAt - slot).toBeLessThan(SLOT_MS);
    }
  });

  it('never stores one reading in two slots when a tick runs after its slot has ended', async () => {
    await engine().withDb(clearHistory);
    const deps = depsOn(engine());
    const first = slotStartOf(clock.ms);
    // The Worker's cron tick for `first` runs 95 s late, inside the next slot; the next tick on time.
    clock.ms = first + 95_000;
    const late = await runSnapshotJob(deps, first + 60_000);
    expect(late).toMatchObject({ slotStart: first, mainnet: 'skipped' });
    expect(late.l2).toEqual([]);
    clock.ms = first + 120_000;
    const onTime = await runSnapshotJob(deps, first + 120_000);
    expect(onTime).toMatchObject({ slotStart: first + SLOT_MS, mainnet: 'written' });
    const rows = await engine().withDb((db) =>
      queryRows(
        db,
        sql`SELECT slot_start, read_at FROM l2_snapshots UNION ALL SELECT slot_start, read_at FROM mainnet_snapshots`,
      ),
    );
    // Every row was read within its own slot, and so in the second slot only.
    for (const row of rows) expect(new Date(row.slot_start as string).getTime()).toBe(first + SLOT_MS);
    expect(rows).toHaveLength(5);
  });

  it('prunes rows older than the retention windows', async () => {
    await engine().withDb(clearHistory);
    // Early in a slot, so the second tick below falls in the same slot.
    clock.ms = slotStartOf(clock.ms) + 10_000;
    const old = slotStartOf(clock.ms - 36 * DAY_MS);
    const oldRow = {
      slotStart: old,
      readAt: old,
      blockNumber: 1,
      baseFeeGwei: 1,
      lowGwei: 1,
      averageGwei: 1,
      highGwei: 1,
      source: 'old',
    };
    await engine().withDb((db) => insertMainnetSnapshot(db, oldRow));
    const deps = depsOn(engine());
    const result = await runSnapshotJob(deps, clock.ms);
    expect(result.pruned).toEqual({ mainnet: 1, l2: 0 });
    expect(await engine().withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(1);

    // A tick that finds its slot complete writes nothing, so it opens no transaction and prunes nothing;
    // the next slot's write prunes again.
    await engine().withDb((db) => insertMainnetSnapshot(db, { ...oldRow, slotStart: old + SLOT_MS }));
    const again = await runSnapshotJob(deps, clock.ms + 1_000);
    expect(again).toMatchObject({ mainnet: 'exists', l2: [], pruned: { mainnet: 0, l2: 0 } });
    expect(await engine().withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(2);
    clock.ms = slotStartOf(clock.ms) + SLOT_MS + 5_000;
    const next = await runSnapshotJob(deps, clock.ms);
    expect(next).toMatchObject({ mainnet: 'written', pruned: { mainnet: 1, l2: 0 } });
  });
});

// The hourly sums (migration 0003) lock each hour's row, in ascending order within a statement. The
// job's transaction prunes (the oldest hour) before it writes (the newest), so a writer of the same
// hours waits for it instead of closing a cycle. PGlite has one connection, so this is PostgreSQL's.
describe.each(['pg', 'neon'] as const)('snapshot job beside a bulk writer on %s', (kind) => {
  const engine = () => jobs.engine(kind);

  it('waits, never deadlocks, when a bulk write of the hour it pruned and the hour it writes comes in mid-transaction', async () => {
    await engine().withDb(clearHistory);
    // The job's slot is the sixth of the next hour, so the other slots written below are in its hour,
    // never it, whatever the time the test runs at (the clock only moves forward).
    const hour = Math.floor(clock.ms / HOUR_MS) * HOUR_MS + HOUR_MS;
    clock.ms = hour + 5 * SLOT_MS + 10_000;
    const slot = slotStartOf(clock.ms);
    const old = slotStartOf(clock.ms - 36 * DAY_MS);
    const row = (slotStart: number, gwei: number): MainnetSnapshot => ({
      slotStart,
      readAt: slotStart + 1_000,
      blockNumber: 1,
      baseFeeGwei: gwei,
      lowGwei: gwei,
      averageGwei: gwei,
      highGwei: gwei,
      source: 'test',
    });
    // Another slot of the job's hour, and one of the hour it prunes: both hours have sums.
    const other = hour + SLOT_MS;
    await engine().withDb((db) => insertMainnetSnapshots(db, [row(old, 1), row(other, 2)]));

    // A gate: a transaction holds the job's hour, so the job stops at its write, mid-transaction.
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const gate = engine().withDb((db) =>
      db.transaction(async (tx) => {
        await tx.execute(
          sql`SELECT 1 FROM mainnet_hourly WHERE hour = ${new Date(hour).toISOString()} FOR UPDATE`,
        );
        held();
        await opened;
      }),
    );
    await holding;
    const job = runSnapshotJob(depsOn(engine()), clock.ms);
    await waitForLockWaiters(engine(), 1);
    // One statement over both hours (an import or a backfill chunk), in ascending hour order.
    const bulk = engine().withDb((db) =>
      insertMainnetSnapshots(db, [row(old + SLOT_MS, 3), row(other + 2 * SLOT_MS, 4)]),
    );
    await waitForLockWaiters(engine(), 2);
    open();
    const [gated, ran, wrote] = await Promise.allSettled([gate, job, bulk]);
    expect(gated.status).toBe('fulfilled');
    expect(ran).toMatchObject({
      status: 'fulfilled',
      value: { slotStart: slot, mainnet: 'written', pruned: { mainnet: 1 } },
    });
    // The bulk write came after the prune, so its row of the old hour stays (the next run prunes it).
    expect(wrote).toEqual({ status: 'fulfilled', value: 2 });
    expect(await engine().withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(4);
    await expectSumsMatchSnapshots(engine());
  });
});

/** Waits until exactly `count` other sessions of this database are waiting for a lock. */
async function waitForLockWaiters(engine: DatabaseEngine, count: number): Promise<void> {
  for (let tries = 0; ; tries++) {
    const [found] = await engine.withDb((db) =>
      queryRows(
        db,
        sql`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      ),
    );
    if (Number(found?.n) === count) return;
    if (tries > 1_000) throw new Error(`${Number(found?.n)} sessions wait for a lock, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
