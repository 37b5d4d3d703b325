import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { findUp } from '../find-up';
import {
  CONTENT_TYPES,
  pageFile,
  RENDERER_FILES,
  RENDERER_PACKAGE,
  RENDERER_URL_PREFIX,
  type WebAssets,
} from '../web/assets';

/** One file ready to serve: its bytes, gzipped bytes (text only) and their strong ETags. */
interface LoadedFile {
  type: string;
  body: Uint8Array;
  etag: string;
  gzip?: { body: Uint8Array; etag: string };
}

// lib/web/public/ from lib/node/ in the sources and from dist-node/ in the bundle `npm start` runs.
const PUBLIC_DIR = findUp('lib/web/public', dirname(fileURLToPath(import.meta.url)));

/** The renderer's folder in node_modules; the Worker gets copies of the same files (scripts/copy-web-vendor.ts). */
export function rendererDir(): string {
  return dirname(createRequire(import.meta.url).resolve(`${RENDERER_PACKAGE}/package.json`));
}

/**
 * Serves the pages and assets from disk for the Node host: files are read once, hashed (SHA-256, the
 * strong ETag) and gzipped once, then answered from memory; `If-None-Match` gets a 304. The Worker
 * serves the same files through its static assets binding instead.
 */
export function createNodeWebAssets(options: { publicDir?: string; vendorDir?: string } = {}): WebAssets {
  const publicDir = options.publicDir ?? PUBLIC_DIR;
  const loaded = new Map<string, Promise<LoadedFile | undefined>>();

  const load = (file: string) => {
    let entry = loaded.get(file);
    if (!entry) {
      entry = loadFile(locate(file, publicDir, options.vendorDir));
      loaded.set(file, entry);
      // Only files that exist stay in memory: made-up names must not grow the map.
      entry.then(
        (found) => found || loaded.delete(file),
        () => loaded.delete(file),
      );
    }
    return entry;
  };

  return {
    async serve(path, request) {
      const file = pageFile(path);
      if (!file) return undefined;
      const found = await load(file);
      if (!found) return undefined;
      const gzip = found.gzip && acceptsGzip(request.headers.get('Accept-Encoding')) ? found.gzip : undefined;
      const etag = gzip?.etag ?? found.etag;
      const headers = new Headers({ ETag: etag, 'Content-Type': found.type, Vary: 'Accept-Encoding' });
      if (gzip) headers.set('Content-Encoding', 'gzip');
      if (matchesEtag(request.headers.get('If-None-Match'), [found.etag, found.gzip?.etag])) {
        return new Response(null, { status: 304, headers });
      }
      return new Response((gzip ?? found).body, { status: 200, headers });
    },
  };
}

/** The renderer's files come from its npm package; everything else from the public folder. */
function locate(file: string, publicDir: string, vendorDir: string | undefined): string | undefined {
  const vendorPrefix = RENDERER_URL_PREFIX.slice(1);
  if (!file.startsWith(vendorPrefix)) return join(publicDir, file);
  const name = file.slice(vendorPrefix.length);
  return RENDERER_FILES.includes(name) ? join(vendorDir ?? rendererDir(), name) : undefined;
}

/** Reads, hashes and (for text) gzips one file; a missing file is `undefined`, not an error. */
async function loadFile(path: string | undefined): Promise<LoadedFile | undefined> {
  if (!path) return undefined;
  const type = CONTENT_TYPES[path.slice(path.lastIndexOf('.') + 1)];
  if (!type) return undefined;
  let body: Uint8Array;
  try {
    body = new Uint8Array(await readFile(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 32);
  const text = type.startsWith('text/') || type === 'image/svg+xml';
  return {
    type,
    body,
    etag: `"${hash}"`,
    ...(text ? { gzip: { body: new Uint8Array(gzipSync(body, { level: 9 })), etag: `"${hash}-gzip"` } } : {}),
  };
}

/**
 * Whether an `Accept-Encoding` accepts gzip (RFC 9110 12.5.3): gzip (or its alias x-gzip) listed with
 * a weight above 0, or not listed and `*` above 0; names are case-insensitive, and `gzip;q=0` refuses
 * it. An element whose weight cannot be read is skipped. No header sends the bytes as they are.
 */
function acceptsGzip(header: string | null): boolean {
  const weights = new Map<string, number>();
  for (const element of (header ?? '').split(',')) {
    const [coding = '', ...params] = element.split(';').map((part) => part.trim().toLowerCase());
    if (coding === '') continue;
    const q = params.find((param) => /^q\s*=/.test(param));
    const weight = q === undefined ? 1 : weightOf(q.slice(q.indexOf('=') + 1).trim());
    if (weight === undefined) continue;
    const name = coding === 'x-gzip' ? 'gzip' : coding;
    weights.set(name, Math.max(weights.get(name) ?? 0, weight));
  }
  return (weights.get('gzip') ?? weights.get('*') ?? 0) > 0;
}

/** A qvalue (`0`, `0.5`, `1.000`) as a number, or undefined when it is none. */
function weightOf(text: string): number | undefined {
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const weight = Number(text);
  return weight <= 1 ? weight : undefined;
}

/** `If-None-Match` against the file's tags (weak comparison, as RFC 9110 asks for this header). */
function matchesEtag(header: string | null, tags: (string | undefined)[]): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const sent = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.some((tag) => tag !== undefined && sent.includes(tag));
}
