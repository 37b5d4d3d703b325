/** Lines collected in memory and written in batches; `flush` writes what is pending at once. */
export interface BufferedOutput {
  write(line: string): void;
  flush(): void;
}

/**
 * Batches log lines so that serving a request never costs a write to stdout (a synchronous system
 * call for files and pipes): lines are written once per `flushMs`, or sooner when the next one would
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
      const bytes = Buffer.byteLength(line) + 1;
      if (used + bytes > maxBytes) flush();
      if (bytes > maxBytes) {
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
