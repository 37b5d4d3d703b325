import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The nearest `relative` path at or above the directory `from`: files the Node host reads at run time
 * (migrations, pages) are found the same way from the sources and from the bundle in dist-node/.
 * Falls back to `from/relative`, so a missing file is reported where it was looked for.
 */
export function findUp(relative: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative);
    if (dirname(dir) === dir) return join(from, relative);
  }
}
