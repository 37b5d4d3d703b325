import type { z } from 'zod';
import { settleWithin } from '../async';
import type { Logger } from '../log';

/** A value with the time it was read upstream (epoch milliseconds). */
export interface LastGood<T> {
  value: T;
  storedAt: number;
}

/** Last-known-good values shared by every instance of the app (Upstash Redis) or one process (memory). */
export interface LastGoodStore {
  get<T>(key: string): Promise<LastGood<T> | null>;
  set<T>(key: string, value: T, storedAt: number): Promise<void>;
}

/** Creates the in-process store used when no Redis is configured. */
export function createMemoryLastGoodStore(): LastGoodStore {
  const values = new Map<string, LastGood<unknown>>();
  return {
    async get<T>(key: string) {
      return (values.get(key) as LastGood<T> | undefined) ?? null;
    },
    async set<T>(key: string, value: T, storedAt: number) {
      const current = values.get(key);
      if (!current || current.storedAt <= storedAt) values.set(key, { value, storedAt });
    },
  };
}

type StoreDeps = { lastGood: LastGoodStore; log: Logger };

/** How long a last-good read or write may take: an unreachable store must cost little of an answer. */
export const LAST_GOOD_TIMEOUT_MS = 1_000;

/**
 * Reads `key` within `timeoutMs` and validates the value with `schema`, since the store is shared
 * (other instances, other versions) and may hold anything. Returns null when the key is absent, the
 * value does not parse, or the store fails or is late; each of the last three is logged.
 */
export async function readLastGood<T>(
  deps: StoreDeps,
  key: string,
  schema: z.ZodType<T>,
  timeoutMs = LAST_GOOD_TIMEOUT_MS,
): Promise<LastGood<T> | null> {
  try {
    const hit = await settleWithin(deps.lastGood.get<unknown>(key), timeoutMs);
    if (!hit) return null;
    const parsed = schema.safeParse(hit.value);
    if (parsed.success) return { value: parsed.data, storedAt: hit.storedAt };
    deps.log.warn('ignored an unreadable last good value', { key });
  } catch (error) {
    deps.log.warn('last good value not read', { key, error: String(error).slice(0, 200) });
  }
  return null;
}

/** Stores `value` under `key` within `timeoutMs`; a failing or late store is logged, never thrown. */
export async function writeLastGood<T>(
  deps: StoreDeps,
  key: string,
  value: T,
  storedAt: number,
  timeoutMs = LAST_GOOD_TIMEOUT_MS,
): Promise<void> {
  try {
    await settleWithin(deps.lastGood.set(key, value, storedAt), timeoutMs);
  } catch (error) {
    deps.log.warn('last good value not saved', { key, error: String(error).slice(0, 200) });
  }
}
