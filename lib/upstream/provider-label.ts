/** Second-level names under which public suffixes like `co.uk` hide the real provider name. */
const SECOND_LEVEL_SUFFIXES = new Set(['co', 'com', 'net', 'org', 'gov', 'ac', 'edu']);

/**
 * Derives a short public label for an upstream from its URL: the provider's name from the host
 * (`https://ethereum-rpc.publicnode.com` -> `publicnode`, `https://eth-mainnet.g.alchemy.com/v2/KEY`
 * -> `alchemy`), or `host:port` for an IP address or localhost (so local providers on different ports
 * stay distinct). A non-default port on a named host is appended. The path, query, user info and
 * subdomains are dropped: they are where API keys live, and a label is shown to the public.
 */
export function labelFromUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'rpc';
  }
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = parsed.port;
  const isIp = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
  if (isIp || host === 'localhost' || !host.includes('.')) {
    const shown = host.includes(':') ? `[${host}]` : host || 'rpc';
    return port ? `${shown}:${port}` : shown;
  }
  const parts = host.split('.');
  const last = parts.length - 1;
  const second = parts[last - 1] ?? '';
  const name =
    parts.length >= 3 && SECOND_LEVEL_SUFFIXES.has(second) && (parts[last]?.length ?? 0) === 2
      ? (parts[last - 2] ?? second)
      : second;
  const safe = name.replace(/[^a-z0-9-]/g, '') || 'rpc';
  return port ? `${safe}:${port}` : safe;
}

/**
 * Labels a list of upstream URLs, keeping labels unique: a repeated provider (two keys at the same
 * service) becomes `alchemy`, `alchemy#2`, ... in list order.
 */
export function labelProviders(urls: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return urls.map((url) => {
    const base = labelFromUrl(url);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}#${count}`;
  });
}
