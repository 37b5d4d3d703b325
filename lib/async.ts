/**
 * Resolves like `promise`, or rejects after `ms`: a dependency that never answers (a hung store)
 * cannot hold a request. The original promise's late failure is swallowed, not left unhandled.
 */
export function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Lets other work on the event loop run (requests, timers) before continuing: long CPU-bound work is
 * cut into slices with this between them, so it delays nothing by more than a slice.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Resolves once every given promise has settled, never rejecting; at once for none. */
export async function allSettled(promises: Iterable<Promise<unknown>>): Promise<void> {
  const pending = [...promises];
  if (pending.length > 0) await Promise.allSettled(pending);
}
