import { setTimeout as delay } from 'node:timers/promises';

/** Lines collected in memory and written in batches; `flush` writes what is pending at once. */
export interface BufferedOutput {
  write(line: string): void;
  flush(): void;
}

/**
 * Batches log lines so that serving a request never costs a write to stdout (a synchronous system
 * call for files and pipes): lines are written once per `flushMs`, or sooner when the next one could
 * pass `maxBytes`. Each line is copied into one byte buffer as it comes, so it is garbage at once:
 * kept as strings until the flush, tens of thousands of lines a second lived through several
 * young-generation collections and were promoted, which cost more CPU than the rest of a cached
 * answer. The timer does not keep the process alive; the host flushes on shutdown and on exit, so no
 * line is lost on a clean stop.
 */
export function createBufferedOutput(
  write: (chunk: Uint8Array) => void,
  options: { flushMs?: number; maxBytes?: number } = {},
): BufferedOutput {
  const flushMs = options.flushMs ?? 100;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  let buffer: Buffer | undefined;
  let used = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!buffer || used === 0) return;
    const chunk = buffer.subarray(0, used);
    // Later lines go to a new buffer: an asynchronous stream may still hold this one.
    buffer = undefined;
    used = 0;
    write(chunk);
  };

  return {
    write(line) {
      // A UTF-16 code unit takes at most 3 bytes in UTF-8: with that much room the line is encoded
      // once, in place, without first counting its bytes (one call into Node's C++ per line, not two).
      const most = line.length * 3 + 1;
      if (used + most > maxBytes) flush();
      if (most > maxBytes) {
        write(Buffer.from(`${line}\n`));
        return;
      }
      const target = buffer ?? Buffer.allocUnsafe(maxBytes);
      buffer = target;
      used += target.write(line, used);
      target[used++] = 0x0a;
      if (!timer) {
        timer = setTimeout(flush, flushMs);
        timer.unref?.();
      }
    },
    flush,
  };
}

/** Where the log's batches go (process.stdout): how many bytes it still queues, and how to write to it. */
export interface LogStream {
  readonly writableLength: number;
  write(chunk: Uint8Array | string): unknown;
}

/** A bounded writer of log batches; `drained` waits until what was written has left the process. */
export interface BoundedWriter {
  write(chunk: Uint8Array): void;
  drained(timeoutMs: number): Promise<void>;
  /** How many lines were dropped since the writer was made. */
  dropped(): number;
}

/**
 * Writes log batches to a stream, but never lets it queue more than `maxQueued` bytes. A pipe whose
 * reader is slower than the request rate (a stalled log shipper) makes Node queue every write in the
 * process, without bound: under load that grew the server by tens of MB a minute. Past the bound a
 * batch is dropped and its lines counted, and the next batch that fits is preceded by a `warn` line
 * saying how many were dropped, so a gap in the log is never silent. Files and terminals are written
 * synchronously and never queue.
 */
export function createBoundedWriter(
  stream: LogStream,
  options: { maxQueued?: number; now?: () => number } = {},
): BoundedWriter {
  const maxQueued = options.maxQueued ?? 4 * 1024 * 1024;
  const now = options.now ?? Date.now;
  let pending = 0;
  let total = 0;

  const reportDropped = () => {
    if (pending === 0) return;
    const note = `${new Date(now()).toISOString()} warn ${pending} log lines dropped: the log's reader fell behind\n`;
    pending = 0;
    stream.write(note);
  };

  return {
    write(chunk) {
      if (stream.writableLength + chunk.byteLength > maxQueued) {
        const lines = countLines(chunk);
        pending += lines;
        total += lines;
        return;
      }
      reportDropped();
      stream.write(chunk);
    },
    async drained(timeoutMs) {
      reportDropped();
      // 'drain' is emitted only after a write past the stream's high-water mark, so the queue is watched.
      const deadline = Date.now() + timeoutMs;
      while (stream.writableLength > 0 && Date.now() < deadline) await delay(10);
    },
    dropped: () => total,
  };
}

function countLines(chunk: Uint8Array): number {
  let lines = 0;
  for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) lines += 1;
  return lines;
}
