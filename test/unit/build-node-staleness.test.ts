// `npm start` rebuilds the Node host's bundle only when it is missing or older than one of its sources
// (scripts/build-node.mjs, imported by scripts/start.mjs), checked on a project laid out in a temp dir.
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without type declarations
import { bundleIsStale, workerAliases } from '../../scripts/build-node.mjs';

const isStale = bundleIsStale as (root: string) => boolean;
const aliasesOf = workerAliases as (root?: string) => Record<string, string>;
const roots: string[] = [];

/** A project with a source, the lockfile and optionally the build script and the bundle, each at the given time (seconds since the epoch). */
function project(times: {
  bundle?: number;
  source: number;
  lock: number;
  script?: number;
  aliases?: number;
  shim?: number;
}): string {
  const root = mkdtempSync(join(tmpdir(), 'gas-build-node-'));
  roots.push(root);
  const file = (path: string, at: number) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), 'x');
    utimesSync(join(root, path), at, at);
  };
  file('lib/store/deep/source.ts', times.source);
  file('package-lock.json', times.lock);
  if (times.script !== undefined) file('scripts/build-node.mjs', times.script);
  if (times.aliases !== undefined) file('wrangler.toml', times.aliases);
  if (times.shim !== undefined) file('worker-shims/zod.mjs', times.shim);
  if (times.bundle !== undefined) file('dist-node/main.mjs', times.bundle);
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('the bundle npm start runs', () => {
  it('is current when it is at least as new as every source', () => {
    expect(isStale(project({ bundle: 2_000, source: 1_000, lock: 2_000 }))).toBe(false);
  });

  it('is stale when a source deep in a source directory is newer', () => {
    expect(isStale(project({ bundle: 2_000, source: 2_001, lock: 1_000 }))).toBe(true);
  });

  it('is stale when the lockfile is newer (dependencies changed)', () => {
    expect(isStale(project({ bundle: 2_000, source: 1_000, lock: 3_000 }))).toBe(true);
  });

  it('is stale when the build script is newer (the bundle is built differently)', () => {
    expect(isStale(project({ bundle: 2_000, source: 1_000, lock: 1_000, script: 2_500 }))).toBe(true);
  });

  it("is stale when wrangler.toml or a stand-in is newer (its [alias] table is the bundle's too)", () => {
    expect(isStale(project({ bundle: 2_000, source: 1_000, lock: 1_000, aliases: 2_500 }))).toBe(true);
    expect(isStale(project({ bundle: 2_000, source: 1_000, lock: 1_000, shim: 2_500 }))).toBe(true);
    expect(isStale(project({ bundle: 2_000, source: 1_000, lock: 1_000, aliases: 1_500, shim: 1_500 }))).toBe(
      false,
    );
  });

  it('is stale when it is missing', () => {
    expect(isStale(project({ source: 1_000, lock: 1_000 }))).toBe(true);
  });
});

describe("the Node host bundle's stand-ins", () => {
  it("are wrangler.toml's [alias] table as wrangler itself reads it, each an existing file", async () => {
    const { unstable_readConfig } = await import('wrangler');
    const root = fileURLToPath(new URL('../..', import.meta.url).href);
    const wrangler: Record<string, string> =
      unstable_readConfig({ config: join(root, 'wrangler.toml') }).alias ?? {};
    const aliases = aliasesOf();
    expect(Object.keys(wrangler).length).toBeGreaterThan(0);
    expect(aliases).toEqual(
      Object.fromEntries(Object.entries(wrangler).map(([name, path]) => [name, join(root, path)])),
    );
    for (const path of Object.values(aliases)) expect(existsSync(path)).toBe(true);
  });

  it.each([
    ['no such table', 'name = "x"\n', /no \[alias\] entries/],
    [
      'a line it cannot read',
      '[alias]\n"zod" = "./z.mjs"\najv = "./a.mjs"\n',
      /cannot read "ajv = \\".\/a.mjs\\""/,
    ],
  ])('refuse a wrangler.toml with %s, instead of building without them', (_, toml, message) => {
    const root = mkdtempSync(join(tmpdir(), 'gas-build-node-'));
    roots.push(root);
    writeFileSync(join(root, 'wrangler.toml'), toml);
    expect(() => aliasesOf(root)).toThrow(message);
  });
});
