/** What identifies the configured upstreams: their keys and the address and port each listens on. */
export interface UpstreamIdentity {
  secrets: readonly string[];
  all: readonly { url: string; port: number }[];
}

/**
 * Lists every trace of an upstream in a text (a response, an MCP result, log lines): a key, the host
 * address of a simulator (`127.0.0.1`, SPEC.md extension 20) or one of their ports. A port counts
 * wherever it stands as a number of its own, except as a JSON value (`"ageMs":45123`), which is data.
 */
export function findLeaks(text: string, up: UpstreamIdentity): string[] {
  const found = up.secrets.filter((secret) => text.includes(secret));
  for (const host of new Set(up.all.map((sim) => new URL(sim.url).hostname))) {
    if (text.includes(host)) found.push(host);
  }
  for (const { port } of up.all) {
    if (new RegExp(`(?<![\\d.]|":)${port}(?!\\d|\\.\\d)`).test(text)) found.push(`port ${port}`);
  }
  return found;
}

/**
 * Fails (throws) when any text carries a key, an address or a port of a configured upstream. No
 * `expect` here: the simulators are also loaded by the workerd projects' global setups, where a
 * module importing vitest cannot run.
 */
export function expectNoLeaks(up: UpstreamIdentity, ...texts: readonly string[]): void {
  const leaks = findLeaks(texts.join('\n'), up);
  if (leaks.length > 0) throw new Error(`upstream traces found: ${leaks.join(', ')}`);
}
