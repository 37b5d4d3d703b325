import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { GasHistoryResponseSchema, HISTORY_RANGES } from '../../lib/schemas/history';
import type { DatabaseEngine } from '../../lib/store/engines';
import {
  BUCKET_LADDER_SECONDS,
  bucketStartOf,
  chooseBucketSeconds,
  MAX_POINTS,
  RANGE_SECONDS,
} from '../../lib/store/history-buckets';
import { insertMainnetSnapshots } from '../../lib/store/history-writes';
import { listSlotStarts, slotStartOf } from '../../lib/store/slots';
import { createTestDeps } from '../helpers/deps';
import { ENGINE_KINDS, type EngineLab, queryRows, startEngineLab } from './helpers/history-engines';

const DAY_MS = 86_400_000;
// Not on any bucket boundary, so every range has a partial bucket at its start.
const NOW = slotStartOf(Date.UTC(2026, 10, 20, 9, 47, 0)) + 41_000;
// 31 days of slots ending now, minus one missing hour six hours ago (a writer outage).
const GAP_START = slotStartOf(NOW - 6 * 3_600_000);
const GAP_END = GAP_START + 3_600_000;
const SLOTS = listSlotStarts(NOW - 31 * DAY_MS, NOW + 1).filter((s) => s < GAP_START || s >= GAP_END);

/** A deterministic, uneven gas series so that wrong bucketing changes the averages. */
function averageAt(slot: number): number {
  const i = slot / 90_000;
  return 8 + ((i * 7919) % 1000) / 37 + Math.sin(i / 50) * 3;
}

/** The buckets a range should answer, computed in JS from the rows written. */
function expectedBuckets(rangeSeconds: number, bucketSeconds: number) {
  const from = NOW - rangeSeconds * 1000;
  const groups = new Map<number, number[]>();
  for (const slot of SLOTS) {
    if (slot <= from || slot > NOW) continue;
    const bucket = bucketStartOf(slot, bucketSeconds);
    groups.set(bucket, [...(groups.get(bucket) ?? []), averageAt(slot)]);
  }
  return [...groups].map(([time, values]) => ({
    time,
    mean: values.reduce((a, b) => a + b, 0) / values.length,
  }));
}

describe('bucket size per range', () => {
  it('uses the smallest ladder size that keeps every range at 300 points or fewer', () => {
    const chosen = Object.fromEntries(HISTORY_RANGES.map((r) => [r, chooseBucketSeconds(RANGE_SECONDS[r])]));
    expect(chosen).toEqual({
      '10m': 90,
      '30m': 90,
      '2h': 90,
      '6h': 90,
      '1d': 360,
      '7d': 3_600,
      '30d': 10_800,
    });
    for (const range of HISTORY_RANGES) {
      const size = chosen[range] as number;
      const index = BUCKET_LADDER_SECONDS.indexOf(size as (typeof BUCKET_LADDER_SECONDS)[number]);
      expect(Math.ceil(RANGE_SECONDS[range] / size) + 1).toBeLessThanOrEqual(MAX_POINTS);
      const smaller = BUCKET_LADDER_SECONDS[index - 1];
      if (smaller) expect(Math.ceil(RANGE_SECONDS[range] / smaller) + 1).toBeGreaterThan(MAX_POINTS);
      expect(size % 90).toBe(0);
    }
  });
});

let lab: EngineLab;
beforeAll(async () => {
  lab = await startEngineLab();
});
afterAll(async () => {
  await lab?.close();
});

describe.each(ENGINE_KINDS)('GET /api/gas-history bucketing on %s', (kind) => {
  let engine: DatabaseEngine;
  beforeAll(async () => {
    engine = await lab.open(kind);
    await engine.withDb((db) =>
      insertMainnetSnapshots(
        db,
        SLOTS.map((slot) => {
          const average = averageAt(slot);
          return {
            slotStart: slot,
            readAt: slot + 1_500,
            blockNumber: null,
            baseFeeGwei: null,
            lowGwei: average * 0.8,
            averageGwei: average,
            highGwei: average * 1.5,
            source: 'rpc.test',
          };
        }),
      ),
    );
  });

  const request = (range: string) =>
    createApp(createTestDeps({}, { withDb: engine.withDb, now: () => NOW })).request(
      `/api/gas-history?range=${range}`,
    );

  it.each(HISTORY_RANGES)(
    'answers range %s with aligned buckets whose values equal a direct SQL average',
    async (range) => {
      const res = await request(range);
      expect(res.status).toBe(200);
      const body = GasHistoryResponseSchema.parse(await res.json());
      const size = chooseBucketSeconds(RANGE_SECONDS[range]);
      const expected = expectedBuckets(RANGE_SECONDS[range], size);

      expect(body.range).toBe(range);
      expect(body.meta.bucketSeconds).toBe(size);
      expect(body.meta.pointCount).toBe(body.points.length);
      expect(body.points.length).toBeLessThanOrEqual(MAX_POINTS);
      expect(body.points.map((p) => Date.parse(p.timestamp))).toEqual(expected.map((b) => b.time));
      for (const point of body.points) expect(Date.parse(point.timestamp) % (size * 1000)).toBe(0);
      // Each mean to the wei (9 decimals), as every other gwei figure: avg() in double precision
      // leaves noise past it (0.06839363500000001).
      body.points.forEach((point, i) => {
        expect(point.gasPrice).toBeCloseTo(expected[i]?.mean ?? Number.NaN, 8);
        expect(point.gasPrice).toBe(Number(point.gasPrice.toFixed(9)));
      });
      expect(body.meta.renderedRangeStart).toBe(body.points[0]?.timestamp);
      expect(body.meta.renderedRangeEnd).toBe(body.points.at(-1)?.timestamp);
      expect(body.citation).toMatch(
        new RegExp(`updated ${new Date(slotStartOf(NOW) + 1_500).toISOString()}$`),
      );

      // The first (partial), a middle and the last bucket against a plain SQL average of the window.
      const from = new Date(NOW - RANGE_SECONDS[range] * 1000).toISOString();
      for (const point of [
        body.points[0],
        body.points[Math.floor(body.points.length / 2)],
        body.points.at(-1),
      ]) {
        if (!point) throw new Error('no point');
        const start = Date.parse(point.timestamp);
        const rows = await engine.withDb((db) =>
          queryRows(
            db,
            sql`SELECT avg(average_gwei) AS mean FROM mainnet_snapshots
          WHERE slot_start > ${from} AND slot_start <= ${new Date(NOW).toISOString()}
          AND slot_start >= ${point.timestamp} AND slot_start < ${new Date(start + size * 1000).toISOString()}`,
          ),
        );
        expect(point.gasPrice).toBeCloseTo(Number(rows[0]?.mean), 8);
        expect(point.gasPrice).toBe(Number(point.gasPrice.toFixed(9)));
      }
    },
  );

  it('leaves a bucket out when no snapshot fell in it, rather than inventing a value', async () => {
    const body = GasHistoryResponseSchema.parse(await (await request('1d')).json());
    const times = body.points.map((p) => Date.parse(p.timestamp));
    expect(times.some((t) => t >= GAP_START && t + 360_000 <= GAP_END)).toBe(false);
    // 241 buckets touch the day; the hour of outage empties 360-second buckets wholly inside it.
    const emptied = expectedBuckets(86_400, 360).length;
    expect(body.points.length).toBe(emptied);
    expect(emptied).toBeLessThan(241);
  });
});
