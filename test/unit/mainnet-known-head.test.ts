// The known mainnet head (lib/services/mainnet-known-head.ts): what the explorer backstop is held to
// once the RPC providers have failed, and which heads may become it.
import { describe, expect, it } from 'vitest';
import {
  computeExplorerMinBlock,
  computeHeadLimit,
  KNOWN_HEAD_KEY,
  recallMainnetHead,
  rememberMainnetHead,
} from '../../lib/services/mainnet-known-head';
import { createMemoryLastGoodStore, type LastGoodStore } from '../../lib/store/last-good';
import { computeMainnetHeadFloor } from '../../lib/upstream/rpc-mainnet-gas';
import { createFaultyStore, createTestDeps } from '../helpers/deps';

/** The last real head of ../shared/data's blob sample, and its time. */
const HEAD = { number: 24_283_622, readAt: 1_769_003_999_000 };
const HOUR_MS = 3_600_000;
/** Blocks in `ms` at a share of 12-s slots missed. */
const blocksIn = (ms: number, missed: number) => Math.floor((ms / 12_000) * (1 - missed));

describe('the lowest LastBlock the explorer may report', () => {
  it('lets an honest explorer through for a day at up to 40 % of slots missed, a minute behind', () => {
    for (const ms of [0, 12_000, 60_000, HOUR_MS, 24 * HOUR_MS]) {
      for (const missed of [0, 0.0078, 0.4]) {
        const lastBlock = HEAD.number + blocksIn(ms, missed) - 5;
        expect(lastBlock).toBeGreaterThanOrEqual(computeExplorerMinBlock(HEAD, HEAD.readAt + ms)!);
      }
    }
  });

  it('refuses one stuck for over half the time since the known head', () => {
    const now = HEAD.readAt + 2 * HOUR_MS;
    expect(HEAD.number + blocksIn(HOUR_MS, 0) - 10).toBeLessThan(computeExplorerMinBlock(HEAD, now)!);
  });

  it('is never below what the clock alone allows', () => {
    const now = HEAD.readAt + 30 * 24 * HOUR_MS;
    const old = { number: 20_000_000, readAt: HEAD.readAt };
    expect(computeExplorerMinBlock(old, now)).toBe(computeMainnetHeadFloor(now));
    expect(computeExplorerMinBlock(null, now)).toBe(computeMainnetHeadFloor(now));
  });
});

describe('the known mainnet head', () => {
  const instance = (lastGood = createMemoryLastGoodStore(), at = HEAD.readAt) => {
    let now = at;
    const deps = createTestDeps({}, { lastGood, now: () => now });
    return { deps, later: (ms: number) => (now += ms) };
  };

  it('is shared with another instance through the store', async () => {
    const lastGood = createMemoryLastGoodStore();
    await rememberMainnetHead(instance(lastGood).deps, HEAD.number);
    expect(await recallMainnetHead(instance(lastGood, HEAD.readAt + HOUR_MS).deps)).toEqual(HEAD);
  });

  it('does not take a head numbered ahead of it by more than a block per slot since', async () => {
    const { deps, later } = instance();
    await rememberMainnetHead(deps, HEAD.number);
    later(60_000);
    const limit = computeHeadLimit(HEAD, HEAD.readAt + 60_000);
    expect(limit - HEAD.number).toBe(5 + 10); // five slots, and the tolerance
    await rememberMainnetHead(deps, limit + 1);
    expect((await recallMainnetHead(deps))?.number).toBe(HEAD.number);
    expect(deps.logs.some((line) => line.includes('not kept'))).toBe(true);
    await rememberMainnetHead(deps, limit);
    expect((await recallMainnetHead(deps))?.number).toBe(limit);
  });

  it('gives way to a lower head seen later, so a bogus head that got in first does not stay', async () => {
    const { deps, later } = instance();
    await rememberMainnetHead(deps, HEAD.number + 50_000); // nothing known to compare it with
    later(12_000);
    await rememberMainnetHead(deps, HEAD.number + 1);
    expect(await recallMainnetHead(deps)).toEqual({ number: HEAD.number + 1, readAt: HEAD.readAt + 12_000 });
  });

  it('is kept in this instance when the store is down, without throwing', async () => {
    const { deps } = instance(createFaultyStore('throw'));
    await rememberMainnetHead(deps, HEAD.number);
    expect(await recallMainnetHead(deps)).toEqual(HEAD);
    expect(deps.logs.some((line) => line.includes('shared store unavailable'))).toBe(true);
  });

  it('keeps this instance on the store when its record of a head times out, which nobody waits for', async () => {
    const inner = createMemoryLastGoodStore();
    // The store takes the record's write and never answers; its other calls are answered.
    const lastGood: LastGoodStore = {
      ...inner,
      set: (key, ...rest) => (key === KNOWN_HEAD_KEY ? new Promise(() => {}) : inner.set(key, ...rest)),
    };
    let now = HEAD.readAt;
    const deps = createTestDeps({ UPSTREAM_TIMEOUT_MS: '100' }, { lastGood, now: () => now });
    await rememberMainnetHead(deps, HEAD.number); // gives up after the store's budget (100 ms here)
    expect(deps.logs.some((line) => line.includes('shared store unavailable'))).toBe(true);
    // A second later another instance keeps a newer head. Until 2026-11-28 the record's timeout sent
    // this instance off the store for 10 s: it recalled its own older head, and read every kind
    // upstream by itself.
    now += 1_000;
    await inner.set(KNOWN_HEAD_KEY, { number: HEAD.number + 1, readAt: now }, HOUR_MS);
    expect(await recallMainnetHead(deps)).toEqual({ number: HEAD.number + 1, readAt: now });
  });

  it('ignores a stored record that is no head, or seen later than any clock can be', async () => {
    const lastGood = createMemoryLastGoodStore();
    const { deps } = instance(lastGood);
    await lastGood.set(KNOWN_HEAD_KEY, { number: 'far', readAt: HEAD.readAt }, HOUR_MS);
    expect(await recallMainnetHead(deps)).toBeNull();
    await lastGood.set(KNOWN_HEAD_KEY, { number: HEAD.number, readAt: HEAD.readAt + HOUR_MS }, HOUR_MS);
    expect(await recallMainnetHead(deps)).toBeNull();
  });
});
