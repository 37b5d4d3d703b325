/**
 * Memoises a one-argument function on the identity of its argument: a value the services cache for a
 * refresh is shaped once per refresh, not once per request. Entries go when the argument is collected.
 */
export function memoByIdentity<A extends object, R>(fn: (arg: A) => R): (arg: A) => R {
  const memo = new WeakMap<A, R>();
  return (arg) => {
    if (memo.has(arg)) return memo.get(arg) as R;
    const result = fn(arg);
    memo.set(arg, result);
    return result;
  };
}
