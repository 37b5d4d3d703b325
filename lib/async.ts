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
