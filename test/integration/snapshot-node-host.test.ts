// The Node host's slot runs (lib/node/scheduler.ts, cron/scheduled.ts runSlotTick): the start-up run
// stores its slot, a slot its first run left a part of gets a second try 60 s in (as the Worker's
// second minute tick), a complete slot none, and a start too late in a slot reads nothing for it.
// The host and the simulators share one clock, put where each test needs it in a slot.
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SNAPSHOT_LATEST_TICK_MS } from '../../cron/snapshot-job';
import { createCoalescingCache } from '../../lib/http/cache';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { createMemoryLastGoodStore } from '../../lib/store/last-good';
import { SLOT_MS, slotStartOf } from '../../lib/store/slots';
import { expectNoLeaks, startUpstreams, type Upstreams } from '../upstreams';
import { clearHistory, queryRows } from './helpers/history-engines';

let up: Upstreams;
let engine: DatabaseEngine;
/** The shared clock: real time moved on by `ahead` (only ever forward: the simulated chains follow it). */
let ahead = 0;
const now = () => Date.now() + ahead;

beforeAll(async () => {
  [up, engine] = await Promise.all([startUpstreams({ now }), openDatabase({ kind: 'pglite' })]);
  await engine.migrate();
});
afterEach(async () => {
  await up.reset();
  await engine.withDb(clearHistory);
});
afterAll(async () => {
  await up?.close();
  await engine?.close();
});

/** Moves the clock on to `intoSlotMs` into the next slot it reaches there; returns that slot's start. */
function moveClockTo(intoSlotMs: number): number {
  const at = now();
  const slot = slotStartOf(at) + (at % SLOT_MS < intoSlotMs ? 0 : SLOT_MS);
  ahead += slot + intoSlotMs - at;
  return slot;
}

/** A host on the shared clock, its log lines in `lines`; `onLine` sees each line as it is logged. */
function startHost(lines: string[], onLine: (line: string) => void = () => {}): Promise<NodeHost> {
  const log = createLogger((line) => {
    lines.push(line);
    onLine(line);
  });
  const deps = {
    withDb: engine.withDb,
    now,
    cache: createCoalescingCache({ now }),
    lastGood: createMemoryLastGoodStore(now),
  };
  return startNodeHost({ ...up.env, PORT: '0' }, { log, deps });
}

const runsLogged = (lines: string[]) => lines.filter((line) => line.includes(' info scheduled run '));
const snapshotsLogged = (lines: string[]) => lines.filter((line) => line.includes(' info snapshot {'));
/** Requests the mainnet and L2 providers have had since the last reset: what a snapshot reads. */
const chainReads = () =>
  [...up.mainnet, ...Object.values(up.l2).flat()].reduce((n, sim) => n + sim.requests.total, 0);

async function storedRows(): Promise<
  Array<{ table: string; slot: number; network: string; readAt: number }>
> {
  const rows = await engine.withDb((db) =>
    queryRows(
      db,
      sql`SELECT 'mainnet' AS tbl, slot_start, 'mainnet' AS network, read_at FROM mainnet_snapshots
          UNION ALL SELECT 'l2', slot_start, network, read_at FROM l2_snapshots ORDER BY network`,
    ),
  );
  return rows.map((row) => ({
    table: row.tbl as string,
    slot: new Date(row.slot_start as string).getTime(),
    network: row.network as string,
    readAt: new Date(row.read_at as string).getTime(),
  }));
}

describe('Node host scheduler', () => {
  it('writes the current slot at start-up through the scheduled jobs', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const slot = moveClockTo(1_000);
    const host = await startHost(lines);
    // Closing waits for the run in progress, so the start-up snapshot has settled afterwards.
    await host.close();
    const rows = await storedRows();
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((row) => row.slot))).toEqual(new Set([slot]));
    expect(runsLogged(lines)).toEqual([expect.stringContaining('"failed":0')]);
  });

  it('fills a part its first run could not read by a second try in the same slot, 60 s in', {
    timeout: 60_000,
  }, async () => {
    const lines: string[] = [];
    // Every mainnet provider and the explorer down for the slot's first run.
    await Promise.all([...up.mainnet.map((sim) => sim.fault('refuse')), up.etherscan.fault('refuse')]);
    const slot = moveClockTo(1_000);
    let recovered: Promise<void> | undefined;
    const host = await startHost(lines, (line) => {
      if (recovered || !line.includes(' info scheduled run ')) return;
      // The first run has ended: the upstreams come back, and the clock moves on to 55 s into the
      // slot, so the second try comes 5 s later however long the first run took.
      recovered = up.reset();
      ahead += Math.max(0, slot + 55_000 - now());
    });
    try {
      await vi.waitFor(() => expect(runsLogged(lines)).toHaveLength(1), { timeout: 30_000 });
      expect(lines.some((line) => line.includes('snapshot: mainnet part skipped'))).toBe(true);
      await recovered;
      await vi.waitFor(() => expect(runsLogged(lines)).toHaveLength(2), { timeout: 30_000 });
    } finally {
      await host.close();
    }
    // The second try ran the snapshot alone, and read no L2 network again: the first run stored them.
    expect(runsLogged(lines)[1]).toContain('"jobs":1');
    expect(
      Object.values(up.l2)
        .flat()
        .reduce((n, sim) => n + sim.requests.total, 0),
    ).toBe(0);
    const rows = await storedRows();
    expect(rows.map((row) => row.network).sort()).toEqual([
      'arbitrum',
      'base',
      'mainnet',
      'optimism',
      'polygon',
    ]);
    expect(new Set(rows.map((row) => row.slot))).toEqual(new Set([slot]));
    const mainnet = rows.find((row) => row.table === 'mainnet');
    expect(mainnet?.readAt).toBeGreaterThanOrEqual(slot + SNAPSHOT_LATEST_TICK_MS);
    expect(mainnet?.readAt).toBeLessThan(slot + SLOT_MS);
    expectNoLeaks(up, ...lines);
  });

  it('gives a complete slot no second try: no second upstream read, no second lookup', {
    timeout: 60_000,
  }, async () => {
    const lines: string[] = [];
    const slot = moveClockTo(1_000);
    let readsByFirstRun: number | undefined;
    const host = await startHost(lines, (line) => {
      if (readsByFirstRun !== undefined || !line.includes(' info scheduled run ')) return;
      readsByFirstRun = chainReads();
      // As above: the second try's moment 5 s away.
      ahead += Math.max(0, slot + 55_000 - now());
    });
    try {
      await vi.waitFor(() => expect(runsLogged(lines)).toHaveLength(1), { timeout: 30_000 });
      // Past the second try's moment; the close then waits for any run under way.
      await vi.waitFor(() => expect(now()).toBeGreaterThan(slot + SNAPSHOT_LATEST_TICK_MS + 500), {
        timeout: 30_000,
        interval: 100,
      });
    } finally {
      await host.close();
    }
    expect(now()).toBeLessThan(slot + SLOT_MS);
    expect(runsLogged(lines)).toHaveLength(1);
    expect(snapshotsLogged(lines)).toHaveLength(1);
    expect(readsByFirstRun).toBeGreaterThan(0);
    expect(chainReads()).toBe(readsByFirstRun);
    expect(await storedRows()).toHaveLength(5);
  });

  it('reads nothing for a slot it starts in too late to store it, and runs the hourly jobs', {
    timeout: 30_000,
  }, async () => {
    const lines: string[] = [];
    const slot = moveClockTo(70_000);
    const host = await startHost(lines);
    try {
      await vi.waitFor(() => expect(runsLogged(lines)).toHaveLength(1), { timeout: 15_000 });
    } finally {
      await host.close();
    }
    expect(now()).toBeLessThan(slot + SLOT_MS);
    expect(lines.some((line) => line.includes('snapshot: left out, too late in its slot'))).toBe(true);
    expect(runsLogged(lines)[0]).toContain('"jobs":2');
    expect(snapshotsLogged(lines)).toEqual([]);
    expect(
      Object.values(up.l2)
        .flat()
        .reduce((n, sim) => n + sim.requests.total, 0),
    ).toBe(0);
    expect(await storedRows()).toEqual([]);
  });
});
