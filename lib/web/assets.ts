/**
 * The pages (`/` dashboard, `/docs` reference) and their assets. Each host answers them its own way:
 * the Node host from disk (`lib/node/web-assets.ts`), the Worker through wrangler's static assets
 * binding, so the 1.7 MB API-reference renderer never enters the Worker script.
 */
export interface WebAssets {
  /**
   * Answers a GET or HEAD for a page or asset path: 200 with the body, or 304 when `If-None-Match`
   * carries the current ETag; `undefined` when there is no such file.
   */
  serve(path: string, request: Request): Promise<Response | undefined>;
}

/**
 * Pages and assets are revalidated on every use: their names carry no content hash, so a browser or
 * the edge may keep a copy but must check its ETag (a 304 costs a round trip and no body).
 */
export const WEB_CACHE_CONTROL = 'public, max-age=0, must-revalidate';

/** The npm package of the API-reference renderer and the files of it that `/docs` loads. */
export const RENDERER_PACKAGE = 'swagger-ui-dist';
export const RENDERER_FILES: readonly string[] = ['swagger-ui-bundle.js', 'swagger-ui.css'];

/** Where the renderer's files are served (and, for the Worker, copied under `lib/web/public`). */
export const RENDERER_URL_PREFIX = '/assets/vendor/';

/** Content types of the files under `lib/web/public` and the renderer's. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
};

/** Maps a page path to its file: `/` is the dashboard, `/docs` the reference; anything else is an asset. */
export function pageFile(path: string): string | undefined {
  if (path === '/') return 'index.html';
  if (path === '/docs') return 'docs.html';
  // One directory level of plain names only: nothing can climb out of the public folder.
  const asset = path.match(/^\/assets\/((?:vendor\/)?[a-z0-9][a-z0-9._-]*\.[a-z0-9]+)$/i)?.[1];
  return asset && !asset.includes('..') ? `assets/${asset}` : undefined;
}
