import { describe, expect, it, vi } from 'vitest';
import { createBufferedOutput } from '../../lib/node/buffered-output';
import { pathOf } from '../../lib/node/host';

describe('buffered log output', () => {
  it('writes a burst of lines in one batch after the flush interval, in order', () => {
    vi.useFakeTimers();
    try {
      const chunks: string[] = [];
      const out = createBufferedOutput((chunk) => chunks.push(text(chunk)), { flushMs: 100 });
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
    const out = createBufferedOutput((chunk) => chunks.push(text(chunk)), { flushMs: 60_000, maxBytes: 100 });
    for (let i = 0; i < 12; i++) out.write('x'.repeat(19));
    expect(chunks).toHaveLength(2);
    out.flush();
    expect(chunks.join('').split('\n').filter(Boolean)).toHaveLength(12);
    out.flush();
    expect(chunks).toHaveLength(3);
  });

  it('keeps UTF-8 lines whole, a line longer than the bound included, in order', () => {
    const chunks: Uint8Array[] = [];
    const out = createBufferedOutput((chunk) => chunks.push(chunk), { flushMs: 60_000, maxBytes: 64 });
    const lines = ['gas 1 gwei — ok', 'é'.repeat(40), 'x'.repeat(200), 'last ✓'];
    for (const line of lines) out.write(line);
    out.flush();
    // A batch stays within the bound; only a line longer than it goes alone.
    for (const chunk of chunks) {
      if (chunk.byteLength > 64) expect(text(chunk).split('\n')).toHaveLength(2);
    }
    expect(chunks).toHaveLength(4);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`${lines.join('\n')}\n`);
  });

  it('hands each batch over in its own bytes: a later line never overwrites a batch already written', () => {
    const chunks: Uint8Array[] = [];
    const out = createBufferedOutput((chunk) => chunks.push(chunk), { flushMs: 60_000 });
    out.write('first');
    out.flush();
    out.write('other');
    out.flush();
    expect(chunks.map(text)).toEqual(['first\n', 'other\n']);
  });
});

const text = (chunk: Uint8Array) => new TextDecoder().decode(chunk);

describe('request log path', () => {
  it('keeps the path and drops the query', () => {
    expect(pathOf('http://127.0.0.1:8787/api/gas-history?range=1d')).toBe('/api/gas-history');
    expect(pathOf('http://h/')).toBe('/');
    expect(pathOf('http://h')).toBe('/');
  });
});
