import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import { launchBrowser, saveScreenshot, type TestBrowser } from '../helpers/browser';
import { startUpstreams, type Upstreams } from '../upstreams';

// In-page code runs in the browser; this Node-typed project has no DOM types.
declare const document: { documentElement: { scrollWidth: number; clientWidth: number } };

/**
 * In-page: each Swagger method badge and version pill, its text and the WCAG contrast ratio of its text
 * colour against its own background colour.
 */
const CONTRAST_SCRIPT = `(() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number).slice(0, 3);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const text = (el) => el.querySelector('pre') || el;
  return [...document.querySelectorAll('.opblock-summary-method, .info .title small')].map((el) => {
    const fg = lum(rgb(getComputedStyle(text(el)).color));
    const bg = lum(rgb(getComputedStyle(el).backgroundColor));
    return { text: el.textContent.trim(), ratio: (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05) };
  });
})()`;

describe('GET /docs in a real browser (Node host, simulated upstreams)', () => {
  let up: Upstreams;
  let host: NodeHost;
  let browser: TestBrowser;
  let base: string;

  beforeAll(async () => {
    up = await startUpstreams();
    host = await startNodeHost(
      { ...up.env, PORT: '0' },
      {
        log: createLogger(() => undefined),
        scheduler: false,
        deps: { withDb: () => Promise.reject(new Error('no store in this test')) },
      },
    );
    base = `http://127.0.0.1:${host.port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await up?.close();
  });

  it('lists every operation of /openapi.json, and "Try it out" on /api/gas answers from this origin', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, object> };
    const expected = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();

    const watched = await browser.open({ width: 1280, height: 900 });
    const { page } = watched;
    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor();
    const listed = await page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim();
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path');
        return `${method} ${path}`;
      }),
    );
    expect(listed.sort()).toEqual(expected);
    expect(expected).toContain('GET /api/gas');

    // The MCP section names this server's MCP URL and a config snippet carrying it.
    expect(await page.locator('#mcp-url').textContent()).toBe(`${base}/api/mcp`);
    const config = JSON.parse((await page.locator('#mcp-config').textContent()) ?? '');
    expect(config.mcpServers['gas-fee-api']).toEqual({ type: 'http', url: `${base}/api/mcp` });

    const operation = page.locator('.opblock', { has: page.locator('[data-path="/api/gas"]') });
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('.try-out__btn').click();
    const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/gas');
    await operation.locator('.execute').click();
    const res = await answered;
    expect(res.url()).toBe(`${base}/api/gas`);
    expect(res.status()).toBe(200);
    const body = (await res.json()) as { average: number; tier: string };
    expect(body.tier).toBe('free');
    await operation.locator('.live-responses-table tbody .response-col_status').first().waitFor();
    expect(
      (
        await operation.locator('.live-responses-table tbody .response-col_status').first().textContent()
      )?.trim(),
    ).toBe('200');
    expect(await operation.locator('.live-responses-table .microlight').first().textContent()).toContain(
      `"average": ${body.average}`,
    );

    expect(watched.problems).toEqual([]);
    expect(watched.requests.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    await saveScreenshot(page, 'docs-desktop');
  });

  it('"Try it out" on POST /api/mcp lists the tools, and every tool is named on the page', async () => {
    const watched = await browser.open({ width: 1280, height: 900 });
    const { page } = watched;
    await page.goto(`${base}/docs`);
    const operation = page.locator('.opblock', { has: page.locator('[data-path="/api/mcp"]') });
    await operation.waitFor();
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('.try-out__btn').click();
    const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/mcp');
    await operation.locator('.execute').click();
    const res = await answered;
    expect(res.status()).toBe(200);
    const { result } = (await res.json()) as { result: { tools: { name: string }[] } };
    const intro = (await page.locator('.intro').textContent()) ?? '';
    expect(result.tools.length).toBe(8);
    for (const tool of result.tools) expect(intro).toContain(tool.name);
    expect(watched.problems).toEqual([]);
  });

  it('draws every method badge and version pill at AA contrast (4.5:1) for its white text', async () => {
    const watched = await browser.open({ width: 1280, height: 900 });
    const { page } = watched;
    await page.goto(`${base}/docs`);
    await page.locator('.opblock').first().waitFor();
    await page.locator('.info .title small').first().waitFor();
    const badges = (await page.evaluate(CONTRAST_SCRIPT)) as { text: string; ratio: number }[];
    const methods = new Set(badges.map((b) => b.text));
    expect(methods).toContain('GET');
    expect(methods).toContain('POST');
    for (const badge of badges) expect(badge.ratio, `${badge.text} badge`).toBeGreaterThanOrEqual(4.5);
    await saveScreenshot(page, 'docs-method-badges');
  });

  it('fits a phone with an operation open: the responses table scrolls inside its card', async () => {
    const watched = await browser.open({ width: 375, height: 812 });
    const { page } = watched;
    await page.goto(`${base}/docs`);
    const operation = page.locator('.opblock', { has: page.locator('[data-path="/api/gas-history"]') });
    await operation.waitFor();
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('.responses-table').first().waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    await saveScreenshot(page, 'docs-mobile-operation-open');
  });
});
