import { sql } from 'drizzle-orm';
import { createPublicClient, http } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BackfillError, type BackfillOptions, backfillWindow, runBackfill } from '../../cron/backfill';
import type { FeeHistory } from '../../lib/oracle/fee-history';
import { computeTiers } from '../../lib/oracle/tiers';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { insertMainnetSnapshots, pruneHistory } from '../../lib/store/history-writes';
import { listSlotStarts, SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { createTestDeps, type TestDeps } from '../helpers/deps';
import { expectNoLeaks, startUpstreams, type Upstreams } from '../upstreams';
import { clearHistory, countRows, queryRows } from './helpers/history-engines';

const DAY_MS = 86_400_000;
let up: Upstreams;
let engine: DatabaseEngine;
// The run's clock, fixed per test so a slot boundary passing mid-test cannot shift the window.
let t0 = Date.now();

beforeAll(async () => {
  [up, engine] = await Promise.all([startUpstreams(), openDatabase({ kind: 'pglite' })]);
  await engine.migrate();
});
beforeEach(async () => {
  t0 = Date.now();
  await engine.withDb(clearHistory);
});
afterEach(async () => {
  await up.reset();
});
afterAll(async () => {
  await up?.close();
  await engine?.close();
});

/** A snapshot row for `slotStart`, as another writer stored it. */
function storedRow(slotStart: number, source: string) {
  return {
    slotStart,
    readAt: slotStart + 1_000,
    blockNumber: null,
    baseFeeGwei: null,
    lowGwei: 1,
    averageGwei: 2,
    highGwei: 3,
    source,
  };
}

function newDeps(): TestDeps {
  return createTestDeps({ ...up.env, UPSTREAM_TIMEOUT_MS: '1000' }, { withDb: engine.withDb, now: () => t0 });
}

function backfill(deps: TestDeps, options: Partial<BackfillOptions> = {}) {
  return runBackfill(deps, { days: 1, timeoutMs: 2_000, retryDelayMs: 10, rounds: 2, ...options });
}

async function storedSlots(): Promise<Array<Record<string, unknown>>> {
  return engine.withDb((db) =>
    queryRows(
      db,
      sql`SELECT slot_start, read_at, block_number, base_fee_gwei, low_gwei, average_gwei, high_gwei, source
          FROM mainnet_snapshots ORDER BY slot_start`,
    ),
  );
}

const ms = (value: unknown) => new Date(value as string).getTime();
// Simulators listen on 127.0.0.1, an address-only host: each is labelled by its place in the list.
const label = (i: number) => `rpc-${i + 1}`;

describe('mainnet backfill from eth_feeHistory', () => {
  it('fills one snapshot per 90-second slot of the last N days, with the live oracle math', async () => {
    const deps = newDeps();
    const summary = await backfill(deps, { days: 1 });
    expect(summary).toMatchObject({ total: 960, done: 960, written: 960, kept: 0, empty: 0, rejected: 0 });
    expect(summary.providers).toEqual([label(0)]);
    const rows = await storedSlots();
    expect(rows.map((r) => ms(r.slot_start))).toEqual(listSlotStarts(summary.fromMs, summary.toMs));
    expect(summary.toMs).toBe(slotStartOf(t0));
    // 7,200 blocks a day plus the first window: 8 calls of at most 1,024 blocks.
    expect(up.mainnet[0]?.requests.byMethod.eth_feeHistory).toBe(8);

    const client = createPublicClient({ transport: http(up.mainnet[1]?.url) });
    for (const row of [rows[0], rows[480], rows.at(-1)]) {
      expect(row?.source).toBe(`backfill:${label(0)}`);
      const block = BigInt(row?.block_number as string | number);
      // The slot's newest block: stamped inside the slot, and the next block is not.
      const [own, next] = await Promise.all([
        client.getBlock({ blockNumber: block }),
        client.getBlock({ blockNumber: block + 1n }).catch(() => undefined),
      ]);
      const slot = ms(row?.slot_start);
      expect(Number(own.timestamp) * 1000).toBe(ms(row?.read_at));
      expect(Number(own.timestamp) * 1000).toBeGreaterThanOrEqual(slot);
      expect(Number(own.timestamp) * 1000).toBeLessThan(slot + SLOT_MS);
      if (next) expect(Number(next.timestamp) * 1000).toBeGreaterThanOrEqual(slot + SLOT_MS);
      // The tiers the live oracle would have served at that block.
      const history = await client.getFeeHistory({
        blockCount: 20,
        blockNumber: block,
        rewardPercentiles: [70, 90, 99],
      });
      const tiers = computeTiers(history as FeeHistory);
      expect([row?.low_gwei, row?.average_gwei, row?.high_gwei, row?.base_fee_gwei].map(Number)).toEqual([
        tiers.low,
        tiers.average,
        tiers.high,
        tiers.baseFee,
      ]);
    }
    expectNoLeaks(up, ...deps.logs);
  });

  it('writes nothing and asks no provider when rerun', async () => {
    await backfill(newDeps(), { days: 1 });
    await up.reset();
    const again = await backfill(newDeps(), { days: 1 });
    expect(again).toMatchObject({ total: 0, written: 0, calls: 0, alreadyStored: 960 });
    expect(up.mainnet.every((sim) => sim.requests.total === 0)).toBe(true);
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(960);
  });

  it('keeps slots already stored by the live job or an import and fills around them', async () => {
    const toMs = slotStartOf(t0);
    const kept = [toMs - 100 * SLOT_MS, toMs - 99 * SLOT_MS, toMs - 500 * SLOT_MS];
    await engine.withDb((db) =>
      insertMainnetSnapshots(
        db,
        kept.map((slotStart) => storedRow(slotStart, 'live-provider')),
      ),
    );
    const summary = await backfill(newDeps(), { days: 1 });
    expect(summary).toMatchObject({ alreadyStored: 3, total: 957, written: 957 });
    const rows = await storedSlots();
    expect(rows).toHaveLength(960);
    expect(
      rows
        .filter((r) => r.source === 'live-provider')
        .map((r) => ms(r.slot_start))
        .sort(),
    ).toEqual([...kept].sort());
  });

  it('fails over when a provider fails mid-way and still fills every slot', async () => {
    const summary = await backfill(newDeps(), {
      days: 1,
      onProgress: (p) => {
        if (p.done > 0 && p.done < p.total) void up.mainnet[0]?.fault('refuse');
      },
    });
    expect(summary).toMatchObject({ total: 960, written: 960 });
    expect(summary.providers).toEqual([label(0), label(1)]);
    const sources = new Set((await storedSlots()).map((r) => r.source));
    expect(sources).toEqual(new Set([`backfill:${label(0)}`, `backfill:${label(1)}`]));
  });

  it('fails over a provider answering absurd fees instead of storing them', async () => {
    await up.mainnet[0]?.fault('absurd');
    const summary = await backfill(newDeps(), { days: 0.25 });
    expect(summary).toMatchObject({ total: 240, written: 240, rejected: 0 });
    expect(summary.providers).toEqual([label(1)]);
  });

  it('stops when every provider fails mid-way, keeps what it stored, and resumes where it stopped', async () => {
    let stoppedAt = 0;
    const first = backfill(newDeps(), {
      days: 1,
      onProgress: (p) => {
        if (stoppedAt === 0 && p.done >= 300) {
          stoppedAt = p.done;
          for (const sim of up.mainnet) void sim.fault('refuse');
        }
      },
    });
    const error = await first.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BackfillError);
    const partial = (error as BackfillError).summary;
    expect(partial.written).toBe(stoppedAt);
    expect(partial.written).toBeLessThan(960);
    expect((error as BackfillError).message).toMatch(/no provider answered/);
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(partial.written);
    // Stored slots are the oldest ones, with no hole: the run walks forward in time.
    const rows = await storedSlots();
    expect(rows.map((r) => ms(r.slot_start))).toEqual(
      listSlotStarts(partial.fromMs, partial.fromMs + partial.written * SLOT_MS),
    );

    await up.reset();
    const resumed = await backfill(newDeps(), { days: 1 });
    expect(resumed.alreadyStored + resumed.total).toBe(960);
    expect(resumed.written).toBe(resumed.total);
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(960);
    expect((await storedSlots()).map((r) => ms(r.slot_start))).toEqual(
      listSlotStarts(resumed.fromMs, resumed.toMs),
    );
  });

  it('stops when the store fails mid-way, and a rerun with the store back finishes the window', async () => {
    let storeDown = false;
    const deps = createTestDeps(
      { ...up.env },
      {
        now: () => t0,
        // The store refuses every call once the first chunk is stored, as a dropped database would.
        withDb: (fn) =>
          storeDown ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : engine.withDb(fn),
      },
    );
    const error = await backfill(deps, {
      days: 1,
      onProgress: () => {
        storeDown = true;
      },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BackfillError);
    expect((error as BackfillError).message).toContain('ECONNREFUSED');
    const stored = await engine.withDb((db) => countRows(db, 'mainnet_snapshots'));
    expect(stored).toBe((error as BackfillError).summary.written);
    expect(stored).toBeGreaterThan(0);

    const resumed = await backfill(newDeps(), { days: 1 });
    expect(resumed).toMatchObject({ alreadyStored: stored, written: 960 - stored });
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(960);
  });

  it('refuses a window beyond the retention or an empty one', async () => {
    await expect(backfill(newDeps(), { days: 36 })).rejects.toThrow(RangeError);
    await expect(backfill(newDeps(), { days: 0 })).rejects.toThrow(RangeError);
    expect(up.mainnet.every((sim) => sim.requests.total === 0)).toBe(true);
  });
});

describe('the window of a full-retention backfill', () => {
  it.each([0, 1, 45_000, SLOT_MS - 1])(
    'holds no slot the pruning deletes at once (now = slot start + %i ms)',
    async (offset) => {
      const nowMs = slotStartOf(t0) + offset;
      const { fromMs, toMs } = backfillWindow(nowMs, 35);
      const slots = listSlotStarts(fromMs, toMs);
      expect(slots).toHaveLength(offset === 0 ? 35 * 960 : 35 * 960 - 1);
      await engine.withDb((db) =>
        insertMainnetSnapshots(
          db,
          // The oldest slots are the ones a pruning reaches.
          slots.slice(0, 3).map((slotStart) => storedRow(slotStart, 'backfill:test')),
        ),
      );
      expect(await engine.withDb((db) => pruneHistory(db, nowMs))).toEqual({ mainnet: 0, l2: 0 });
    },
  );
});

it('a day of slots is exactly 960', () => {
  expect(listSlotStarts(0, DAY_MS)).toHaveLength(960);
});
