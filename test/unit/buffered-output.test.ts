import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createBoundedWriter, createBufferedOutput } from '../../lib/node/buffered-output';
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

  it('writes early rather than pass the size bound, and flush writes whatever is pending', () => {
    const chunks: string[] = [];
    const out = createBufferedOutput((chunk) => chunks.push(text(chunk)), { flushMs: 60_000, maxBytes: 100 });
    const lines = Array.from({ length: 12 }, (_, i) => String(i).padStart(19, 'x'));
    for (const line of lines) out.write(line);
    // Each batch is written before the next line could overflow it: 3 lines of 20 bytes, as a line
    // of 19 characters is given room for its worst case in UTF-8 (58 bytes).
    expect(chunks).toHaveLength(3);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(100);
    out.flush();
    expect(chunks).toHaveLength(4);
    expect(chunks.join('').split('\n').slice(0, -1)).toEqual(lines);
    out.flush();
    expect(chunks).toHaveLength(4);
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

  it('never cuts a multi-byte line short, whatever room is left in the batch', () => {
    const chunks: Uint8Array[] = [];
    const out = createBufferedOutput((chunk) => chunks.push(chunk), { flushMs: 60_000, maxBytes: 64 });
    // 21 three-byte characters after a one-byte line: 63 bytes would not fit after it; a lone
    // surrogate is written as U+FFFD (3 bytes), a surrogate pair as 4.
    const lines = ['a', '€'.repeat(21), `x\ud800y`, '🙂'.repeat(10), 'b'];
    for (const line of lines) out.write(line);
    out.flush();
    for (const chunk of chunks) expect(chunk.byteLength).toBeLessThanOrEqual(64);
    expect(Buffer.concat(chunks)).toEqual(Buffer.from(`${lines.join('\n')}\n`));
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

/** A real Writable whose reader has stalled: it takes each chunk but completes none until `release`. */
function stalledStream() {
  const received: string[] = [];
  const held: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk.toString());
      held.push(done);
    },
  });
  // Completing one write lets the stream hand over the next queued one, which is held in turn.
  const release = async () => {
    while (held.length > 0) {
      held.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { stream, received, release };
}

const batch = (from: number, count: number) =>
  Buffer.from(Array.from({ length: count }, (_, i) => `line ${from + i}\n`).join(''));

describe('bounded log writer', () => {
  it('stops queueing at the bound while the reader stalls, and says how many lines it dropped', async () => {
    const { stream, received, release } = stalledStream();
    const writer = createBoundedWriter(stream, { maxQueued: 1000, now: () => Date.UTC(2026, 10, 24) });
    // 100 batches of 10 lines (about 80 bytes each) into a reader that takes none of them.
    for (let i = 0; i < 100; i++) writer.write(batch(i * 10, 10));
    expect(stream.writableLength).toBeLessThanOrEqual(1000);
    // The batches grow as the numbers do: those whose sizes add up to at most 1,000 bytes are kept.
    let kept = 0;
    for (let queued = 0; queued + batch(kept * 10, 10).byteLength <= 1000; kept++) {
      queued += batch(kept * 10, 10).byteLength;
    }
    expect(kept).toBeGreaterThan(5);
    expect(writer.dropped()).toBe((100 - kept) * 10);

    await release();
    expect(stream.writableLength).toBe(0);
    writer.write(batch(1000, 1));
    await release();
    const lines = received.join('').split('\n').filter(Boolean);
    // The batches that fitted, in order, then the note of the gap, then what came after it.
    expect(lines.slice(0, kept * 10)).toEqual(Array.from({ length: kept * 10 }, (_, i) => `line ${i}`));
    expect(lines[kept * 10]).toBe(
      `2026-11-24T00:00:00.000Z warn ${(100 - kept) * 10} log lines dropped: the log's reader fell behind`,
    );
    expect(lines.slice(kept * 10 + 1)).toEqual(['line 1000']);
    expect(lines).toHaveLength(kept * 10 + 2);
  });

  it('drops nothing while the reader keeps up', async () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    const writer = createBoundedWriter(stream, { maxQueued: 100 });
    for (let i = 0; i < 1000; i++) writer.write(batch(i * 5, 5));
    await writer.drained(1000);
    expect(writer.dropped()).toBe(0);
    expect(chunks.join('').split('\n').filter(Boolean)).toHaveLength(5000);
  });

  it('drained waits until the queue has left, and reports a gap no later batch reported', async () => {
    const { stream, received, release } = stalledStream();
    const writer = createBoundedWriter(stream, { maxQueued: 200 });
    for (let i = 0; i < 10; i++) writer.write(batch(i * 10, 10));
    let done = false;
    const drained = writer.drained(10_000).then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(done).toBe(false);
    await release();
    await drained;
    expect(stream.writableLength).toBe(0);
    expect(received.join('')).toMatch(/warn \d+ log lines dropped/);
  });

  it('drained gives up after its timeout when the reader never comes back', async () => {
    const { stream } = stalledStream();
    const writer = createBoundedWriter(stream);
    writer.write(batch(0, 3));
    const started = Date.now();
    await writer.drained(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(stream.writableLength).toBeGreaterThan(0);
  });
});

describe('request log path', () => {
  it('keeps the path and drops the query', () => {
    expect(pathOf('http://127.0.0.1:8787/api/gas-history?range=1d')).toBe('/api/gas-history');
    expect(pathOf('http://h/')).toBe('/');
    expect(pathOf('http://h')).toBe('/');
  });
});
