import { describe, expect, it, vi } from 'vitest';
import { createBufferedOutput } from '../../lib/node/buffered-output';
import { pathOf } from '../../lib/node/host';

describe('buffered log output', () => {
  it('writes a burst of lines in one batch after the flush interval, in order', () => {
    vi.useFakeTimers();
    try {
      const chunks: string[] = [];
      const out = createBufferedOutput((chunk) => chunks.push(chunk), { flushMs: 100 });
      for (let i = 0; i < 500; i++) out.write(`line ${i}`);
      expect(chunks).toEqual([]);
      vi.advanceTimersByTime(100);
      expect(chunks).toHaveLength(1);
      expect(chunks[0]?.split('\n').slice(0, -1)).toEqual(Array.from({ length: 500 }, (_, i) => `line ${i}`));
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes early past the size bound, and flush writes whatever is pending', () => {
    const chunks: string[] = [];
    const out = createBufferedOutput((chunk) => chunks.push(chunk), { flushMs: 60_000, maxBytes: 100 });
    for (let i = 0; i < 12; i++) out.write('x'.repeat(19));
    expect(chunks).toHaveLength(2);
    out.flush();
    expect(chunks.join('').split('\n').filter(Boolean)).toHaveLength(12);
    out.flush();
    expect(chunks).toHaveLength(3);
  });
});

describe('request log path', () => {
  it('keeps the path and drops the query', () => {
    expect(pathOf('http://127.0.0.1:8787/api/gas-history?range=1d')).toBe('/api/gas-history');
    expect(pathOf('http://h/')).toBe('/');
    expect(pathOf('http://h')).toBe('/');
  });
});
