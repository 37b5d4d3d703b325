import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeDbError } from '../../lib/store/database';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { importHistory, seriesToSnapshots } from '../../lib/store/history-import';
import { readHourlyHistory } from '../../lib/store/history-queries';
import { insertMainnetSnapshot } from '../../lib/store/history-writes';
import {
  clearHistory,
  countRows,
  ENGINE_KINDS,
  type EngineLab,
  queryRows,
  startEngineLab,
} from './helpers/history-engines';

const run = promisify(execFile);
const T0 = Date.UTC(2026, 0, 5, 10, 0, 0); // a slot start: 10:00:00 UTC is a multiple of 90 s

describe('turning a series into slots', () => {
  it('sets all three tiers to the value, source import, one snapshot per 90-second slot', () => {
    const snapshots = seriesToSnapshots([
      { time: T0 + 12_000, value: 10 },
      { time: T0 + 24_000, value: 20 },
      { time: T0 + 90_000, value: 7.5 },
    ]);
    expect(snapshots).toEqual([
      {
        slotStart: T0,
        readAt: T0 + 24_000,
        blockNumber: null,
        baseFeeGwei: null,
        lowGwei: 15,
        averageGwei: 15,
        highGwei: 15,
        source: 'import',
      },
      {
        slotStart: T0 + 90_000,
        readAt: T0 + 90_000,
        blockNumber: null,
        baseFeeGwei: null,
        lowGwei: 7.5,
        averageGwei: 7.5,
        highGwei: 7.5,
        source: 'import',
      },
    ]);
  });

  it('refuses a negative, zero, non-finite or absurd price rather than storing it', () => {
    expect(() => seriesToSnapshots([{ time: T0, value: -1 }])).toThrow(/not a gas price/);
    expect(() => seriesToSnapshots([{ time: T0, value: 0 }])).toThrow(/not a gas price/);
    expect(() => seriesToSnapshots([{ time: T0, value: Number.NaN }])).toThrow(/not a gas price/);
    // A file in wei imported as gwei.
    expect(() => seriesToSnapshots([{ time: T0, value: 30_000_000_000 }])).toThrow(/--unit wei/);
  });
});

let lab: EngineLab;
beforeAll(async () => {
  lab = await startEngineLab();
});
afterAll(async () => {
  await lab?.close();
});

describe.each(ENGINE_KINDS)('history import on %s', (kind) => {
  let engine: DatabaseEngine;
  beforeAll(async () => {
    engine = await lab.open(kind);
  });
  beforeEach(async () => {
    await engine.withDb(clearHistory);
  });

  it('writes new slots and keeps the ones already stored', async () => {
    await engine.withDb((db) =>
      insertMainnetSnapshot(db, {
        slotStart: T0 + 90_000,
        readAt: T0 + 91_000,
        blockNumber: 1,
        baseFeeGwei: 3,
        lowGwei: 3,
        averageGwei: 4,
        highGwei: 5,
        source: 'rpc.test',
      }),
    );
    const rows = Array.from({ length: 2_500 }, (_, i) => ({ time: T0 + i * 45_000, value: 10 + (i % 7) }));
    const now = T0 + 10 * 86_400_000;
    const summary = await engine.withDb((db) => importHistory(db, rows, now));
    expect(summary).toEqual({ rows: 2_500, slots: 1_250, written: 1_249, kept: 1, tooOld: 0 });
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(1_250);
    const { hours } = await engine.withDb((db) => readHourlyHistory(db, T0));
    // The stored live reading (average 4) survived inside the first hour's mean.
    const firstHour = rows.filter(
      (r) => r.time < T0 + 3_600_000 && (r.time < T0 + 90_000 || r.time >= T0 + 180_000),
    );
    const slotMeans = new Map<number, number[]>();
    for (const r of firstHour) {
      const slot = Math.floor(r.time / 90_000) * 90_000;
      slotMeans.set(slot, [...(slotMeans.get(slot) ?? []), r.value]);
    }
    const means = [...slotMeans.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
    const expected = (means.reduce((a, b) => a + b, 0) + 4) / (means.length + 1);
    expect(hours[0]?.average).toBeCloseTo(expected, 9);
    expect(await engine.withDb((db) => importHistory(db, rows, now))).toEqual({
      rows: 2_500,
      slots: 1_250,
      written: 0,
      kept: 1_250,
      tooOld: 0,
    });
  });

  it('leaves out rows the retention would prune, and refuses rows in the live slot or later', async () => {
    const now = T0 + 40 * 86_400_000;
    const rows = [
      { time: T0, value: 10 }, // 40 days old: past the 35-day retention
      { time: now - 86_400_000, value: 11 },
    ];
    expect(await engine.withDb((db) => importHistory(db, rows, now))).toEqual({
      rows: 2,
      slots: 1,
      written: 1,
      kept: 0,
      tooOld: 1,
    });
    // A row in the slot under way would take the live reading's place (an import "from the future"
    // would block every live tick of its slot): nothing is written.
    const ahead = [
      { time: now - 3_600_000, value: 12 },
      { time: now + 7_200_000, value: 13 },
    ];
    await expect(engine.withDb((db) => importHistory(db, ahead, now))).rejects.toThrow(
      /slot under way or later/,
    );
    expect(await engine.withDb((db) => countRows(db, 'mainnet_snapshots'))).toBe(1);
  });
});

describe('npm run history:import', () => {
  const cli = (args: string[], env: Record<string, string>) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/history-import.ts', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
  const FILE = '../shared/data/owlracle_eth_gas_price_hourly_2024-11-06_2024-12-06.csv';

  it('imports a real hourly series into PostgreSQL, then keeps every slot on a second run', async () => {
    // The real values, moved to end a day ago so the 35-day retention keeps them, in both time forms.
    const [header = '', ...lines] = readFileSync(FILE, 'utf8').trim().split('\n');
    const last = Number(lines.at(-1)?.split(',')[1]);
    const shift = Math.floor(Date.now() / 1000) - 86_400 - last;
    const moved = lines.map((line) => {
      const [, unix, ...rest] = line.split(',');
      const time = Number(unix) + shift;
      return [new Date(time * 1000).toISOString().replace('.000', ''), time, ...rest].join(',');
    });
    const file = join(mkdtempSync(join(tmpdir(), 'import-')), 'recent.csv');
    writeFileSync(file, [header, ...moved].join('\n'));
    const url = await lab.server.createDatabase('cli_import');
    const first = await cli([file, '--time-column', 'unix_ts', '--value-column', 'close_gwei'], {
      DATABASE_URL: url,
    });
    expect(first.stdout).toContain('742 rows into 742 slots on 127.0.0.1: 742 written, 0 kept');
    const second = await cli([file, '--time-column', 'timestamp_utc', '--value-column', 'close_gwei'], {
      DATABASE_URL: url,
    });
    expect(second.stdout).toContain('742 rows into 742 slots on 127.0.0.1: 0 written, 742 kept');
    // The file as it is (late 2024) is past the retention: nothing imported, and the line says why.
    const old = await cli([FILE, '--time-column', 'unix_ts', '--value-column', 'close_gwei'], {
      DATABASE_URL: url,
    });
    expect(old.stdout).toContain('742 rows into 0 slots on 127.0.0.1: 0 written, 0 kept');
    expect(old.stdout).toContain('742 rows older than the 35-day retention not imported');
  });

  it('stores a wei file exact to the wei (3 wei is 3e-9 gwei, not 3.0000000000000004e-9)', async () => {
    // Three slots of a day ago, so the retention keeps them; the wei values a 1e-9 scale got wrong.
    const slot = Math.floor((Date.now() / 1000 - 86_400) / 90) * 90;
    const file = join(mkdtempSync(join(tmpdir(), 'import-')), 'wei.csv');
    writeFileSync(file, `time,wei\n${slot},3\n${slot + 90},7\n${slot + 180},12345678901\n`);
    const url = await lab.server.createDatabase('cli_import_wei');
    const result = await cli([file, '--unit', 'wei'], { DATABASE_URL: url });
    expect(result.stdout).toContain('3 rows into 3 slots on 127.0.0.1: 3 written, 0 kept');
    const engine = await openDatabase({ kind: 'pg', url });
    try {
      const rows = await engine.withDb((db) =>
        queryRows(
          db,
          sql`SELECT low_gwei, average_gwei, high_gwei FROM mainnet_snapshots ORDER BY slot_start`,
        ),
      );
      expect(rows.map((row) => [row.low_gwei, row.average_gwei, row.high_gwei])).toEqual(
        [3e-9, 7e-9, 12.345678901].map((gwei) => [gwei, gwei, gwei]),
      );
    } finally {
      await engine.close();
    }
  });

  it('reads a time without a zone as UTC on a machine in another zone, and refuses a form it cannot read', async () => {
    // Yesterday (UTC) at 3:04:05 and 9:30, written with a one-digit hour: Date.parse read them in New York.
    const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    const dir = mkdtempSync(join(tmpdir(), 'import-'));
    const file = join(dir, 'zoneless.csv');
    writeFileSync(file, `time,gwei\n${day} 3:04:05,12.5\n${day} 9:30,7\n`);
    const url = await lab.server.createDatabase('cli_import_zoneless');
    const env = { DATABASE_URL: url, TZ: 'America/New_York' };
    expect((await cli([file], env)).stdout).toContain('2 rows into 2 slots on 127.0.0.1: 2 written, 0 kept');
    const engine = await openDatabase({ kind: 'pg', url });
    try {
      const rows = await engine.withDb((db) =>
        queryRows(db, sql`SELECT read_at FROM mainnet_snapshots ORDER BY slot_start`),
      );
      expect(rows.map((row) => new Date(row.read_at as Date).getTime())).toEqual([
        Date.UTC(y, m - 1, d, 3, 4, 5),
        Date.UTC(y, m - 1, d, 9, 30),
      ]);
    } finally {
      await engine.close();
    }
    // A 12-hour time names no zone Date.parse would not guess: refused by line, with the forms read.
    const bad = join(dir, 'pm.csv');
    writeFileSync(bad, `time,gwei\n${day} 03:04:05 PM,12.5\n`);
    await expect(cli([bad], env)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /line 2: time column "time" holds ".* PM", not a time \(.*Unix seconds\)/,
      ),
    });
  });

  it('stops with a message naming the bad column, and never prints the connection string', async () => {
    const url = `postgres://importer:s3cr3t-pw@127.0.0.1:${lab.server.port}/postgres`;
    const bad = cli([FILE, '--value-column', 'gwei'], { DATABASE_URL: url });
    await expect(bad).rejects.toMatchObject({
      stderr: expect.stringContaining('value column "gwei" is not in the header'),
    });
    const unreachable = cli([FILE, '--value-column', 'close_gwei'], {
      DATABASE_URL: 'postgres://importer:s3cr3t-pw@127.0.0.1:1/gas',
    });
    const failure = await unreachable.catch((error: { stderr: string; code: number }) => error);
    expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining('ECONNREFUSED') });
    expect((failure as { stderr: string }).stderr).not.toContain('s3cr3t');
  });

  it('describes a wrapped driver error with its cause and no URL or port', () => {
    const error = new Error('Failed query: select 1\nparams: ', {
      cause: new Error('connect to postgres://a:secret@db.example:5432/x refused'),
    });
    // A URL is cut down to its host name: no password, database path or port.
    expect(describeDbError(error)).toBe('Failed query: select 1: connect to db.example refused');
  });
});
