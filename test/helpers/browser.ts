import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`, done by .ci/run); playwright-core never downloads one. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the test run saves its screenshots (git-ignored; copies worth keeping go under docs/). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'screenshots');

/** A page with everything that went wrong on it: console errors, page errors, failed or foreign requests. */
export interface WatchedPage {
  page: Page;
  problems: string[];
  /** Every request URL the page made, in order. */
  requests: string[];
}

/** A headless Chromium with a fresh profile, cut off from background networking. */
export interface TestBrowser {
  browser: Browser;
  /** Opens a page in a fresh context with this viewport, recording its problems. */
  open(
    viewport: { width: number; height: number },
    options?: { colorScheme?: 'light' | 'dark' },
  ): Promise<WatchedPage>;
  close(): Promise<void>;
}

/** Launches Chromium headless (playwright gives it a fresh temporary profile) with the flags that keep it quiet in CI. */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const contexts: BrowserContext[] = [];
  const pages: Page[] = [];
  return {
    browser,
    async open(viewport, options = {}) {
      const context = await browser.newContext({ viewport, colorScheme: options.colorScheme ?? 'light' });
      contexts.push(context);
      const page = await context.newPage();
      pages.push(page);
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') problems.push(`console error: ${msg.text()} (${msg.location().url})`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('request', (req) => requests.push(req.url()));
      page.on('requestfailed', (req) =>
        problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`),
      );
      return { page, problems, requests };
    },
    async close() {
      // A page that keeps polling may be inside a test's route handler (awaiting `route.fetch()`) when its
      // context closes; unrouting with 'ignoreErrors' first keeps that handler's rejection from escaping.
      await Promise.all(pages.map((p) => p.unrouteAll({ behavior: 'ignoreErrors' }).catch(() => undefined)));
      await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
      await browser.close();
    },
  };
}

/** Saves a full-page screenshot under test-results/screenshots and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
