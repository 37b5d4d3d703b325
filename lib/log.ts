/** Structured one-line logging; callers pass hosts or labels, never URLs. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

/** Replaces every URL in a text by its host, so an API key in a path or query never reaches a log. */
export function redactUrls(text: string): string {
  return text.replace(URL_PATTERN, (match) => {
    try {
      return new URL(match).host || '[url]';
    } catch {
      return '[url]';
    }
  });
}

/** Creates a logger that writes one redacted line per event to `write` (console by default). */
export function createLogger(write: (line: string) => void = (line) => console.log(line)): Logger {
  const emit = (level: string, message: string, fields?: Record<string, unknown>) => {
    const extra = fields ? ` ${JSON.stringify(fields)}` : '';
    write(redactUrls(`${new Date().toISOString()} ${level} ${message}${extra}`));
  };
  return {
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
  };
}
