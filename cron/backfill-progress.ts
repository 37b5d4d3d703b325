const BAR_WIDTH = 30;
const number = new Intl.NumberFormat('en-US');

/** Formats a count with thousands separators, as the progress bar and the summary show counts. */
export function formatCount(value: number): string {
  return number.format(value);
}

/** Renders `[#####.....] 42% 12,345/28,800 slots`: plain text, readable in a CI log too. */
export function formatProgressBar(done: number, total: number): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * BAR_WIDTH);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}`;
  return `[${bar}] ${Math.floor(ratio * 100)}% ${formatCount(done)}/${formatCount(total)} slots`;
}

/** Where the bar is drawn: stderr in the CLI, a buffer in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Creates a progress bar: redrawn in place on a terminal, else one line per 10 % so a log file stays
 * short. `log` clears the bar before a log line so the two never share a line.
 */
export function createProgressBar(stream: ProgressStream) {
  let drawn = false;
  let lastStep = -1;
  return {
    update(done: number, total: number) {
      const line = formatProgressBar(done, total);
      if (stream.isTTY) {
        stream.write(`\r${line}`);
        drawn = true;
        return;
      }
      const step = Math.floor((total > 0 ? done / total : 1) * 10);
      if (step !== lastStep) stream.write(`${line}\n`);
      lastStep = step;
    },
    log(line: string) {
      stream.write(`${drawn ? '\r\x1b[K' : ''}${line}\n`);
      drawn = false;
    },
    end() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
