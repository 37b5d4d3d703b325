/** Second-level names under which public suffixes like `co.uk` hide the real provider name. */
const SECOND_LEVEL_SUFFIXES = new Set(['co', 'com', 'net', 'org', 'gov', 'ac', 'edu']);

/** Suffixes of names that only resolve inside a private network (RFC 6761, 6762, 8375 and common use). */
const PRIVATE_SUFFIXES = [
  'localhost',
  'localdomain',
  'local',
  'internal',
  'lan',
  'home.arpa',
  'intranet',
  'corp',
];

/** What an operator may call a provider (`name=url`): short, and safe in any response or log line. */
export const PROVIDER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** One entry of a provider list: its URL and, when the operator gave one, its name. */
export interface ProviderEntry {
  name?: string | undefined;
  url: string;
}

/**
 * True when a host says nothing public: an IPv4 or IPv6 address (private ranges included),
 * `localhost`, a single-label name or a name under a private-network suffix. Such a host is never
 * shown, since it would publish an internal address.
 */
export function isAddressOnlyHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host.includes(':') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return true;
  if (!host.includes('.')) return true;
  return PRIVATE_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`));
}

/**
 * The provider's name taken from a public host (`https://ethereum-rpc.publicnode.com` -> `publicnode`,
 * `https://eth-mainnet.g.alchemy.com/v2/KEY` -> `alchemy`), or undefined for an address-only host or
 * an unparsable URL. The port, path, query, user info and subdomains are dropped: keys live there, and
 * a label is shown to the public.
 */
export function labelFromUrl(url: string): string | undefined {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (isAddressOnlyHost(hostname)) return undefined;
  const parts = hostname.toLowerCase().replace(/\.$/, '').split('.');
  const last = parts.length - 1;
  const second = parts[last - 1] ?? '';
  const name =
    parts.length >= 3 && SECOND_LEVEL_SUFFIXES.has(second) && (parts[last]?.length ?? 0) === 2
      ? (parts[last - 2] ?? second)
      : second;
  const label = name.replace(/[^a-z0-9-]/g, '');
  // `localhost` is never shown (SPEC extension 20), whatever the host around it or the name it is
  // part of (`localhost-rpc`): the operator's own names are held to the same rule (config.ts).
  return label && !label.includes('localhost') ? label : undefined;
}

/**
 * Labels a provider list (SPEC.md extension 20): the operator's name where given, else the provider's
 * name from its public host, else `rpc-N` (N its position in the list, from 1). Labels stay unique:
 * a repeated provider (two keys at one service) becomes `alchemy`, `alchemy#2`, ... in list order.
 * Names are checked (and duplicates refused) where the list is parsed, in the configuration.
 */
export function labelProviders(entries: readonly ProviderEntry[]): string[] {
  const taken = new Set(entries.flatMap((e) => (e.name ? [e.name.toLowerCase()] : [])));
  const seen = new Map<string, number>();
  return entries.map((entry, index) => {
    if (entry.name) return entry.name;
    const base = labelFromUrl(entry.url) ?? `rpc-${index + 1}`;
    let count = seen.get(base) ?? (taken.has(base) ? 1 : 0);
    let label: string;
    do {
      count += 1;
      label = count === 1 ? base : `${base}#${count}`;
    } while (taken.has(label.toLowerCase()));
    seen.set(base, count);
    taken.add(label.toLowerCase());
    return label;
  });
}
