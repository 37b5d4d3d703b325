/** Lines collected in memory and written in batches; `flush` writes what is pending at once. */
export interface BufferedOutput {
  write(line: string): void;
  flush(): void;
}

/**
 * Batches log lines so that serving a request never costs a write to stdout (a synchronous system
 * call for files and pipes): lines are joined and written once per `flushMs`, or sooner past
 * `maxBytes`. The timer does not keep the process alive; the host flushes on shutdown and on exit,
 * so no line is lost on a clean stop.
 */
export function createBufferedOutput(
  write: (chunk: string) => void,
  options: { flushMs?: number; maxBytes?: number } = {},
): BufferedOutput {
  const flushMs = options.flushMs ?? 100;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  let pending: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const chunk = `${pending.join('\n')}\n`;
    pending = [];
    size = 0;
    write(chunk);
  };

  return {
    write(line) {
      pending.push(line);
      size += line.length + 1;
      if (size >= maxBytes) flush();
      else if (!timer) {
        timer = setTimeout(flush, flushMs);
        timer.unref?.();
      }
    },
    flush,
  };
}
