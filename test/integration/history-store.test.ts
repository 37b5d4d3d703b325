import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scoreForecasts } from '../../lib/forecast/accuracy';
import { forecastModelVersion } from '../../lib/forecast/model-version';
import {
  insertReplayedForecasts,
  readBacktestSummary,
  readReplayedOrigins,
} from '../../lib/store/backtest-replays';
import type { Database } from '../../lib/store/database';
import { type DatabaseEngine, MIGRATIONS_FOLDER, openDatabase } from '../../lib/store/engines';
import { readBucketedHistory, readHourlyHistory, readL2Samples } from '../../lib/store/history-queries';
import {
  HISTORY_RETENTION_DAYS,
  insertL2Snapshots,
  insertMainnetSnapshot,
  insertMainnetSnapshots,
  type L2Snapshot,
  type MainnetSnapshot,
  pruneHistory,
} from '../../lib/store/history-writes';
import { isSlotStart, listSlotStarts, SLOT_MS, slotStartOf } from '../../lib/store/slots';
import {
  clearHistory,
  countRows,
  ENGINE_KINDS,
  type EngineLab,
  expectSumsMatchSnapshots,
  queryRows,
  startEngineLab,
} from './helpers/history-engines';

const MIGRATION_COUNT = (
  JSON.parse(
    readFileSync(
      fileURLToPath(new URL('../../drizzle/migrations/meta/_journal.json', import.meta.url).href),
      'utf8',
    ),
  ) as {
    entries: unknown[];
  }
).entries.length;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
// A slot start on a Tuesday afternoon, far from any hour boundary alignment luck.
const NOW = slotStartOf(Date.UTC(2026, 10, 17, 14, 23, 11)) + 41_000;

function mainnet(slotStart: number, average: number, extra: Partial<MainnetSnapshot> = {}): MainnetSnapshot {
  return {
    slotStart,
    readAt: slotStart + 2_000,
    blockNumber: 21_000_000 + slotStart / SLOT_MS,
    baseFeeGwei: average * 0.8,
    lowGwei: average * 0.9,
    averageGwei: average,
    highGwei: average * 1.3,
    source: 'rpc.test',
    ...extra,
  };
}

function l2(network: string, slotStart: number, gwei: number): L2Snapshot {
  return {
    network,
    slotStart,
    readAt: slotStart + 3_000,
    gasPriceGwei: gwei,
    executionGasCostUsd: gwei * 21_000 * 1e-9 * 3_000,
    l1DataFeeUsd: network === 'base' ? 0.0004 : null,
    nativeUsd: 3_000,
  };
}

describe('90-second slots', () => {
  it('puts every time in the slot that starts at floor(epoch seconds / 90) * 90', () => {
    expect(slotStartOf(0)).toBe(0);
    expect(slotStartOf(89_999)).toBe(0);
    expect(slotStartOf(90_000)).toBe(90_000);
    expect(slotStartOf(1_800_000_050_123)).toBe(1_800_000_000_000);
    expect(isSlotStart(1_800_000_000_000)).toBe(true);
    expect(isSlotStart(1_800_000_000_001)).toBe(false);
    expect(listSlotStarts(1, 270_001)).toEqual([90_000, 180_000, 270_000]);
    expect(listSlotStarts(NOW - DAY_MS, NOW)).toHaveLength(960);
  });
});

let lab: EngineLab;
beforeAll(async () => {
  lab = await startEngineLab();
});
afterAll(async () => {
  await lab?.close();
});

describe.each(['pg', 'neon'] as const)('migrations on %s', (kind) => {
  it('are applied once when three processes migrate one fresh database at the same moment', async () => {
    const url = await lab.server.createDatabase(`fresh_${kind}`);
    const engines = await Promise.all(
      [0, 1, 2].map(() => openDatabase({ kind, url, connectTimeoutMs: 30_000 })),
    );
    try {
      const outcomes = await Promise.allSettled(engines.map((engine) => engine.migrate()));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const rows = await engines[0]!.withDb((db) =>
        queryRows(db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`),
      );
      expect(Number(rows[0]?.n)).toBe(MIGRATION_COUNT);
    } finally {
      await Promise.allSettled(engines.map((engine) => engine.close()));
    }
  });
});

describe.each(ENGINE_KINDS)('history store on %s', (kind) => {
  let engine: DatabaseEngine;
  beforeAll(async () => {
    engine = await lab.open(kind);
  });
  beforeEach(async () => {
    await engine.withDb(clearHistory);
  });

  it('applies the migrations again without change', async () => {
    await engine.migrate();
    const rows = await engine.withDb((db) =>
      queryRows(db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`),
    );
    // One row per migration in drizzle's journal, however often they are applied.
    expect(Number(rows[0]?.n)).toBe(MIGRATION_COUNT);
  });

  it('writes a mainnet slot once and keeps the first reading', async () => {
    const slot = slotStartOf(NOW);
    expect(await engine.withDb((db) => insertMainnetSnapshot(db, mainnet(slot, 12)))).toBe(true);
    expect(await engine.withDb((db) => insertMainnetSnapshot(db, mainnet(slot, 99)))).toBe(false);
    const { hours, snapshotCount } = await engine.withDb((db) => readHourlyHistory(db, slot - HOUR_MS));
    expect(snapshotCount).toBe(1);
    expect(hours[0]?.average).toBe(12);
  });

  it('writes a slot exactly once under 200 overlapping writers', async () => {
    const slot = slotStartOf(NOW);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        engine.withDb((db) => insertMainnetSnapshot(db, mainnet(slot, 10 + i, { readAt: slot + i }))),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(1);
    // The hour's sums hold that one row, once.
    expect((await engine.withDb((db) => readHourlyHistory(db, 0))).snapshotCount).toBe(1);
    await expectSumsMatchSnapshots(engine);
  });

  it('refuses a time that is not a slot start', async () => {
    await expect(
      engine.withDb((db) => insertMainnetSnapshot(db, mainnet(slotStartOf(NOW) + 1, 5))),
    ).rejects.toThrow(/not the start of a 90-second slot/);
    await expect(engine.withDb((db) => insertL2Snapshots(db, [l2('base', NOW, 0.01)]))).rejects.toThrow(
      /90-second slot/,
    );
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(0);
  });

  it('bulk-writes mainnet slots, keeping those already stored', async () => {
    const slots = listSlotStarts(NOW - 3 * HOUR_MS, NOW);
    await engine.withDb((db) => insertMainnetSnapshot(db, mainnet(slots[5] as number, 1)));
    const written = await engine.withDb((db) =>
      insertMainnetSnapshots(
        db,
        slots.map((slot) => mainnet(slot, 20)),
      ),
    );
    expect(written).toBe(slots.length - 1);
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(slots.length);
  });

  it('writes each L2 network once per slot and reports which it wrote', async () => {
    const slot = slotStartOf(NOW);
    const first = await engine.withDb((db) =>
      insertL2Snapshots(db, [l2('arbitrum', slot, 0.01), l2('base', slot, 0.002)]),
    );
    expect(first.sort()).toEqual(['arbitrum', 'base']);
    const second = await engine.withDb((db) =>
      insertL2Snapshots(db, [l2('arbitrum', slot, 0.5), l2('base', slot, 0.5), l2('polygon', slot, 30)]),
    );
    expect(second).toEqual(['polygon']);
    const overlapping = await Promise.all(
      Array.from({ length: 50 }, () =>
        engine.withDb((db) => insertL2Snapshots(db, [l2('optimism', slot, 0.001)])),
      ),
    );
    expect(overlapping.flat()).toEqual(['optimism']);
    const arbitrum = await engine.withDb((db) =>
      readL2Samples(db, 'arbitrum', { fromMs: slot - 1, toMs: slot }),
    );
    expect(arbitrum.map((s) => s.gasPriceGwei)).toEqual([0.01]);
    expect(await engine.withDb((db) => insertL2Snapshots(db, []))).toEqual([]);
  });

  it('reads raw L2 samples of one network inside the window, oldest first', async () => {
    const slots = listSlotStarts(NOW - 2 * HOUR_MS, NOW + 1);
    // Written newest first so that the order of the answer comes from the query.
    const rows = [...slots]
      .reverse()
      .flatMap((slot, i) => [l2('optimism', slot, i + 1), l2('base', slot, 1000 + i)]);
    await engine.withDb((db) => insertL2Snapshots(db, rows));
    const samples = await engine.withDb((db) =>
      readL2Samples(db, 'optimism', { fromMs: NOW - HOUR_MS, toMs: NOW }),
    );
    const expected = slots.filter((slot) => slot > NOW - HOUR_MS && slot <= NOW);
    expect(samples.map((s) => s.time)).toEqual(expected);
    expect(samples).toHaveLength(40);
    expect(samples.every((s) => s.gasPriceGwei < 1000)).toBe(true);
    // The slot at index j was written with gwei = slots.length - j.
    const first = expected[0] as number;
    const gwei = slots.length - slots.indexOf(first);
    expect(samples[0]).toEqual({
      time: first,
      readAt: first + 3_000,
      gasPriceGwei: gwei,
      executionGasCostUsd: l2('optimism', first, gwei).executionGasCostUsd,
    });
  });

  it('aggregates hourly tier means that equal a direct SQL average, and counts the snapshots', async () => {
    const slots = listSlotStarts(NOW - 30 * HOUR_MS, NOW);
    await engine.withDb((db) =>
      insertMainnetSnapshots(
        db,
        slots.map((slot, i) => mainnet(slot, 5 + (i % 17) * 0.37)),
      ),
    );
    const since = NOW - 24 * HOUR_MS;
    const { hours, snapshotCount } = await engine.withDb((db) => readHourlyHistory(db, since));
    // Whole hours, from the one holding `since` on.
    const fromHour = Math.floor(since / HOUR_MS) * HOUR_MS;
    const inWindow = slots.filter((slot) => slot >= fromHour);
    expect(inWindow.length).toBeGreaterThan(slots.filter((slot) => slot >= since).length);
    expect(snapshotCount).toBe(inWindow.length);
    expect(hours.map((h) => h.time)).toEqual([
      ...new Set(inWindow.map((s) => Math.floor(s / HOUR_MS) * HOUR_MS)),
    ]);
    expect(hours[0]?.time).toBe(fromHour);
    for (const hour of [hours[0], hours[7], hours.at(-1)]) {
      if (!hour) throw new Error('missing hour');
      const [row = {}] = await engine.withDb((db) =>
        queryRows(
          db,
          sql`SELECT avg(low_gwei) AS low, avg(average_gwei) AS average, avg(high_gwei) AS high
          FROM mainnet_snapshots WHERE slot_start >= ${new Date(hour.time).toISOString()}
          AND slot_start < ${new Date(hour.time + HOUR_MS).toISOString()}`,
        ),
      );
      expect(hour.low).toBeCloseTo(Number(row.low), 9);
      expect(hour.average).toBeCloseTo(Number(row.average), 9);
      expect(hour.high).toBeCloseTo(Number(row.high), 9);
    }
  });

  it('keeps the hourly sums equal to the snapshots through every kind of write and delete', async () => {
    const slots = listSlotStarts(NOW - 6 * HOUR_MS, NOW);
    // A bulk write of every other slot, then single writes of the rest (one of them twice).
    await engine.withDb((db) =>
      insertMainnetSnapshots(
        db,
        slots.filter((_, i) => i % 2 === 0).map((slot, i) => mainnet(slot, 3 + (i % 11) * 0.21)),
      ),
    );
    for (const [i, slot] of slots.entries()) {
      if (i % 2 === 1)
        await engine.withDb((db) => insertMainnetSnapshot(db, mainnet(slot, 7 + (i % 5) * 0.13)));
    }
    expect(await engine.withDb((db) => insertMainnetSnapshot(db, mainnet(slots[1] as number, 999)))).toBe(
      false,
    );
    await expectSumsMatchSnapshots(engine);
    // Part of an hour deleted (as pruning does at its cut), a row changed, then a whole hour deleted.
    const cut = new Date((slots[10] as number) + 1).toISOString();
    await engine.withDb((db) => db.execute(sql`DELETE FROM mainnet_snapshots WHERE slot_start < ${cut}`));
    await engine.withDb((db) =>
      db.execute(
        sql`UPDATE mainnet_snapshots SET average_gwei = average_gwei * 2 WHERE slot_start = ${new Date(slots[30] as number).toISOString()}`,
      ),
    );
    await expectSumsMatchSnapshots(engine);
    const hour = Math.floor((slots[50] as number) / HOUR_MS) * HOUR_MS;
    await engine.withDb((db) =>
      db.execute(
        sql`DELETE FROM mainnet_snapshots WHERE slot_start >= ${new Date(hour).toISOString()} AND slot_start < ${new Date(hour + HOUR_MS).toISOString()}`,
      ),
    );
    const { hours } = await engine.withDb((db) => readHourlyHistory(db, 0));
    expect(hours.map((h) => h.time)).not.toContain(hour);
    await expectSumsMatchSnapshots(engine);
    // Pruning past the retention window leaves no hour behind.
    await engine.withDb((db) => pruneHistory(db, NOW + (HISTORY_RETENTION_DAYS.mainnet + 1) * DAY_MS));
    expect(await engine.withDb((db) => readHourlyHistory(db, 0))).toEqual({ hours: [], snapshotCount: 0 });
    // TRUNCATE (as the tests' own clearing does) empties the sums too.
    await engine.withDb((db) => insertMainnetSnapshot(db, mainnet(slots[3] as number, 4)));
    await engine.withDb(clearHistory);
    expect(await engine.withDb((db) => readHourlyHistory(db, 0))).toEqual({ hours: [], snapshotCount: 0 });
  });

  it('adds up the writers of one hour that overlap in separate transactions', async () => {
    const slots = listSlotStarts(NOW - HOUR_MS, NOW).filter(
      (slot) => Math.floor(slot / HOUR_MS) === Math.floor(NOW / HOUR_MS),
    );
    // Each slot written by three overlapping transactions: one row each, none lost, none counted twice.
    await Promise.all(
      [...slots, ...slots, ...slots].map((slot, i) =>
        engine.withDb((db) =>
          db.transaction(async (tx) => {
            await insertMainnetSnapshot(tx, mainnet(slot, 2 + ((slot / SLOT_MS) % 7), { readAt: slot + i }));
          }),
        ),
      ),
    );
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(slots.length);
    const { hours, snapshotCount } = await engine.withDb((db) => readHourlyHistory(db, 0));
    expect(snapshotCount).toBe(slots.length);
    expect(hours).toHaveLength(1);
    await expectSumsMatchSnapshots(engine);
  });

  it('counts a slot that starts exactly at the end of the window but not one exactly at its start', async () => {
    const end = slotStartOf(NOW);
    const slots = listSlotStarts(end - 2 * HOUR_MS, end + 10 * SLOT_MS);
    await engine.withDb((db) =>
      insertMainnetSnapshots(
        db,
        slots.map((slot) => mainnet(slot, slot / SLOT_MS)),
      ),
    );
    const { buckets, latestReadAt } = await engine.withDb((db) =>
      readBucketedHistory(db, { fromMs: end - 1_800_000, toMs: end, bucketSeconds: 90 }),
    );
    expect(buckets).toHaveLength(20);
    expect(buckets[0]).toEqual({
      time: end - 1_800_000 + SLOT_MS,
      gasPrice: (end - 1_800_000) / SLOT_MS + 1,
    });
    expect(buckets.at(-1)).toEqual({ time: end, gasPrice: end / SLOT_MS });
    expect(latestReadAt).toBe(end + 2_000);
  });

  it('prunes mainnet past 35 days and L2 past 8 days, and nothing newer', async () => {
    const mainnetCut = NOW - HISTORY_RETENTION_DAYS.mainnet * DAY_MS;
    const l2Cut = NOW - HISTORY_RETENTION_DAYS.l2 * DAY_MS;
    const around = (cut: number) => [
      slotStartOf(cut) - SLOT_MS,
      slotStartOf(cut) + SLOT_MS,
      slotStartOf(NOW),
    ];
    await engine.withDb((db) =>
      insertMainnetSnapshots(
        db,
        around(mainnetCut).map((slot) => mainnet(slot, 3)),
      ),
    );
    await engine.withDb((db) =>
      insertL2Snapshots(
        db,
        around(l2Cut).flatMap((slot) => [l2('arbitrum', slot, 0.01), l2('polygon', slot, 40)]),
      ),
    );
    expect(await engine.withDb((db) => pruneHistory(db, NOW))).toEqual({ mainnet: 1, l2: 2 });
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(2);
    expect(await engine.withDb((db) => countRows(db, 'l2_snapshots'))).toBe(4);
    expect(await engine.withDb((db) => pruneHistory(db, NOW))).toEqual({ mainnet: 0, l2: 0 });
  });
});

/** A copy of the migrations folder whose journal stops before the migration tagged `…_${tag}`. */
function migrationsBefore(tag: string): string {
  const earlier = mkdtempSync(join(tmpdir(), 'migrations-'));
  cpSync(MIGRATIONS_FOLDER, earlier, { recursive: true });
  const journalPath = join(earlier, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const before = journal.entries.findIndex((entry) => entry.tag.endsWith(`_${tag}`));
  expect(before).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, before);
  writeFileSync(journalPath, JSON.stringify(journal));
  return earlier;
}

/**
 * A new store of `kind` migrated up to the migration tagged `…_${tag}`, as a store made before it:
 * `migrateAll` then applies the rest, `close` ends it.
 */
async function openStoreBefore(kind: 'pglite' | 'pg', tag: string, database: string) {
  const earlier = migrationsBefore(tag);
  const client =
    kind === 'pglite'
      ? new PGlite()
      : new pg.Pool({ connectionString: await lab.server.createDatabase(database) });
  const db =
    kind === 'pglite'
      ? drizzlePglite({ client: client as PGlite })
      : drizzlePg({ client: client as pg.Pool });
  const migrate = (folder: string) =>
    kind === 'pglite'
      ? migratePglite(db as ReturnType<typeof drizzlePglite>, { migrationsFolder: folder })
      : migratePg(db as ReturnType<typeof drizzlePg>, { migrationsFolder: folder });
  await migrate(earlier);
  return {
    store: db as unknown as Database,
    migrateAll: () => migrate(MIGRATIONS_FOLDER),
    close: async () => {
      await (kind === 'pglite' ? (client as PGlite).close() : (client as pg.Pool).end());
      rmSync(earlier, { recursive: true, force: true });
    },
  };
}

describe('the hourly sums migration on a store that already holds snapshots', () => {
  it.each(['pglite', 'pg'] as const)('sums the stored hours on %s', async (kind) => {
    // The migrations before the hourly sums, as a store made before them was migrated.
    const { store, migrateAll, close } = await openStoreBefore(kind, 'mainnet_hourly', 'before_hourly');
    try {
      const slots = listSlotStarts(NOW - 3 * HOUR_MS, NOW);
      await insertMainnetSnapshots(
        store,
        slots.map((slot, i) => mainnet(slot, 1 + (i % 9) * 0.5)),
      );
      await migrateAll();
      const engine = { withDb: <T>(fn: (d: Database) => Promise<T>) => fn(store) };
      expect((await readHourlyHistory(store, 0)).snapshotCount).toBe(slots.length);
      await expectSumsMatchSnapshots(engine);
      // And the triggers keep them from then on.
      await insertMainnetSnapshot(store, mainnet(slotStartOf(NOW) + SLOT_MS, 50));
      await expectSumsMatchSnapshots(engine);
    } finally {
      await close();
    }
  });
});

describe('the back-test model version migration on a store that already holds a back-test', () => {
  it.each(['pglite', 'pg'] as const)(
    'marks the stored rows unversioned, and the code before it still writes during a deployment, on %s',
    async (kind) => {
      const { store, migrateAll, close } = await openStoreBefore(
        kind,
        'backtest_model_version',
        'before_model_version',
      );
      const hour = Math.floor(NOW / HOUR_MS) * HOUR_MS;
      const iso = (ms: number) => new Date(ms).toISOString();
      // The inserts of the code before the migration: its columns only, ON CONFLICT DO NOTHING.
      const oldReplay = (origin: number) =>
        store.execute(sql`INSERT INTO replayed_forecasts
          (origin_hour, replayed_at, current_average_gwei, points, decision, outcome)
          VALUES (${iso(origin)}, ${iso(NOW)}, 10, '[]', '{}', '{}') ON CONFLICT DO NOTHING`);
      const oldSummary = (at: number) =>
        store.execute(sql`INSERT INTO backtest_summaries (accuracy_window, hour, computed_at, figures)
          VALUES ('7d', ${iso(at)}, ${iso(NOW)}, ${JSON.stringify(scoreForecasts([]))})
          ON CONFLICT DO NOTHING`);
      try {
        await oldReplay(hour - 30 * HOUR_MS);
        await oldSummary(hour - HOUR_MS);
        await migrateAll();
        const version = forecastModelVersion();
        expect(await queryRows(store, sql`SELECT model_version AS v FROM replayed_forecasts`)).toEqual([
          { v: 'unversioned' },
        ]);
        expect(
          await queryRows(store, sql`SELECT model_version AS v, history_hours AS n FROM backtest_summaries`),
        ).toEqual([{ v: 'unversioned', n: 0 }]);
        // A process still running the code before it writes as it did, and is never served.
        await oldReplay(hour - 29 * HOUR_MS);
        await oldSummary(hour);
        await oldSummary(hour);
        expect(await countRows(store, 'backtest_summaries')).toBe(2);
        expect(await readBacktestSummary(store, '7d', 0, version)).toBeNull();
        expect(await readReplayedOrigins(store, 0, version)).toEqual([]);
        // The current code replaces those replays with its own, once.
        const replay = (origin: number) => ({
          originHour: origin,
          current: 10,
          points: [],
          decision: { recommendation: 'send_now' as const, nextBestAt: iso(origin) },
          outcome: { actual: [], sameHourYesterday: [] },
        });
        const replays = [replay(hour - 30 * HOUR_MS), replay(hour - 29 * HOUR_MS)];
        expect(await insertReplayedForecasts(store, replays, version, NOW)).toBe(2);
        expect(await insertReplayedForecasts(store, replays, version, NOW)).toBe(0);
        await oldReplay(hour - 29 * HOUR_MS);
        expect(await readReplayedOrigins(store, 0, version)).toEqual([
          hour - 30 * HOUR_MS,
          hour - 29 * HOUR_MS,
        ]);
        expect(await countRows(store, 'replayed_forecasts')).toBe(2);
      } finally {
        await close();
      }
    },
  );
});
