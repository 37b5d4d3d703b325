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
