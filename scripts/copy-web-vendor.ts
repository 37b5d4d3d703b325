// Copies the API reference's renderer (swagger-ui-dist) from node_modules into lib/web/public, the
// Worker's static assets folder. wrangler runs it before `dev`, `deploy` and `npm run build` ([build]
// in wrangler.toml); the Node host reads the same files straight from node_modules instead.
import { copyFileSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rendererDir } from '../lib/node/web-assets';
import { RENDERER_FILES, RENDERER_URL_PREFIX } from '../lib/web/assets';

/** Copies the renderer's files into `<publicDir>/assets/vendor/` and returns the folder. */
export function copyWebVendor(
  publicDir = fileURLToPath(new URL('../lib/web/public/', import.meta.url).href),
): string {
  const target = join(publicDir, RENDERER_URL_PREFIX);
  mkdirSync(target, { recursive: true });
  for (const name of RENDERER_FILES) {
    // Copied aside, then renamed over the old file: a Worker serving this folder meanwhile (a test, a
    // `wrangler dev`) reads the old file or the new one, never half of one.
    const aside = join(target, `.${name}.${process.pid}.tmp`);
    copyFileSync(join(rendererDir(), name), aside);
    renameSync(aside, join(target, name));
  }
  return target;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`renderer copied to ${copyWebVendor()}`);
}
