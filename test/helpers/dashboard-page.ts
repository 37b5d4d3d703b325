// The dashboard as the browser tests open and judge it: its feeds, the JSON the page received, what it
// logged, and whether it fits its viewport.
import type { Page, Response } from 'playwright-core';
import { expect } from 'vitest';
import type { WatchedPage } from './browser';

// In-page code (waitForFunction, evaluate) runs in the browser; this Node-typed project has no DOM
// types, so the little of the DOM it touches is declared here (module scope, no global clash).
interface PageElement {
  id: string;
  className: unknown;
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; right: number; top: number; bottom: number };
  getClientRects(): { length: number };
}
declare const document: {
  querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
  querySelector(selector: string): PageElement | null;
  documentElement: { scrollWidth: number; clientWidth: number };
};
declare const window: { innerWidth: number } & Record<string, unknown>;

/**
 * In-page: every element with its own visible text, its text colour against the first opaque background
 * behind it, as a WCAG contrast ratio: how many were checked and those below 4.5 (AA for body text).
 */
const LOW_CONTRAST_SCRIPT = `(() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor || 'rgb(255,255,255)');
  };
  const low = [];
  let checked = 0;
  for (const el of document.querySelectorAll('main *, header *, footer *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('svg') || el.closest('.visually-hidden') || el.getClientRects().length === 0) continue;
    checked++;
    const fg = lum(rgb(getComputedStyle(el).color).slice(0, 3));
    const bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) low.push(el.tagName + '.' + el.className + ' "' + el.textContent.trim().slice(0, 30) + '" ' + ratio.toFixed(2));
  }
  return { checked, low };
})()`;

export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 375, height: 812 };
export const FEEDS = [
  '/api/dashboard',
  '/api/gas',
  '/api/eth-price',
  '/api/l2-gas',
  '/api/gas-history?range=1d',
];
// biome-ignore lint/suspicious/noExplicitAny: API bodies, compared field by field with what the page shows.
export type Json = Record<string, any>;

/**
 * A Layer 2 network's L1 part of a plain transfer in USD, from the API's fields: OP Stack's L1 data fee;
 * Arbitrum's extra gas units at its base fee (SPEC extension 17: Nitro charges every unit at it; the gas
 * price where no base fee was read); 0 on Polygon.
 */
export function l2L1PartUsd(network: Json): number | null {
  if (network.feeModel === 'sidechain') return 0;
  if (network.feeModel === 'rollup_op_stack') return network.estimatedL1DataFeeUsd;
  if (network.estimatedL1GasUnits === null) return null;
  return network.estimatedL1GasUnits * (network.baseFee ?? network.gasPriceGwei) * 1e-9 * network.nativeUsd;
}

/** Opens the dashboard and returns the JSON bodies the page itself received, by path. */
export async function openDashboard(watched: WatchedPage, base: string): Promise<Record<string, Json>> {
  const { page } = watched;
  const answers = FEEDS.map((path) =>
    page.waitForResponse((res) => res.url() === `${base}${path}` && res.request().method() === 'GET'),
  );
  await page.goto(`${base}/`);
  const bodies: Record<string, Json> = {};
  for (const res of await Promise.all(answers)) bodies[new URL(res.url()).pathname] = await bodyOf(res);
  // Rendered once the L2 rows and the price are in (every feed has answered by now).
  await page.waitForFunction(() => document.querySelectorAll('#l2-table tbody tr').length === 4);
  await page.waitForFunction(
    () => document.querySelector('#decision')?.getAttribute('data-state') !== 'loading',
  );
  return bodies;
}

/**
 * What went wrong on the page, less the one expected miss: the forecast-accuracy line asks for its endpoint,
 * which a service without it answers 404 (the browser logs that; the page hides the line).
 */
export function problemsOf(watched: WatchedPage, allowed: RegExp[] = []): string[] {
  const expected = [/404 \(Not Found\) \(http:\/\/[^)]*\/api\/forecast-accuracy\)$/, ...allowed];
  return watched.problems.filter((p) => !expected.some((re) => re.test(p)));
}

/** Every feed answered 200: a failed one would leave the locators waiting for figures never drawn. */
export function expectEveryFeedAnswered(api: Record<string, Json>): void {
  for (const [path, body] of Object.entries(api)) expect(body.status, `${path} answered`).toBeUndefined();
}

export async function bodyOf(res: Response): Promise<Json> {
  return res.status() === 200 ? ((await res.json()) as Json) : { status: res.status() };
}

/** The `value` of the `<data>` element under `selector`, as a number. */
export async function dataValue(page: Page, selector: string): Promise<number> {
  return Number(await page.locator(`${selector} data`).first().getAttribute('value'));
}

/**
 * Asserts the page fits its viewport: no horizontal scroll, nothing past either edge, no two blocks of
 * a group (sections, tier cards, L2 rows, facts, section heads, chart labels) overlapping, and every
 * text at AA contrast.
 */
export async function expectToFitViewport(page: Page): Promise<void> {
  const layout = await page.evaluate(() => {
    const box = (el: PageElement) => {
      const r = el.getBoundingClientRect();
      return {
        name: el.id || el.className || el.tagName,
        left: r.left,
        right: r.right,
        top: r.top,
        bottom: r.bottom,
      };
    };
    const groups = [
      [...document.querySelectorAll('main > section:not([hidden]), main > h1, main > .status')],
      [...document.querySelectorAll('#tiers > li')],
      [...document.querySelectorAll('#l2-table tbody tr')],
      [...document.querySelectorAll('#gas-facts > div')],
      [...document.querySelectorAll('.section-head > *:not([hidden])')],
      [...document.querySelectorAll('#chart svg text.axis')],
    ].map((els) => els.map(box));
    const everything = [...document.querySelectorAll('body *')].filter(
      (el) => el.getClientRects().length > 0,
    );
    return {
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      groups,
      overflowing: everything.map(box).filter((b) => b.right > window.innerWidth + 0.5 || b.left < -0.5),
    };
  });
  expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
  const contrast = (await page.evaluate(LOW_CONTRAST_SCRIPT)) as {
    checked: number;
    low: string[];
  };
  expect(contrast.checked).toBeGreaterThan(50);
  expect(contrast.low).toEqual([]);
  expect(layout.overflowing.filter((b) => b.name !== 'visually-hidden')).toEqual([]);
  for (const group of layout.groups) {
    for (let i = 0; i < group.length; i++) {
      for (let j = i + 1; j < group.length; j++) {
        const [a, b] = [group[i]!, group[j]!];
        const overlap =
          a.left < b.right - 0.5 &&
          b.left < a.right - 0.5 &&
          a.top < b.bottom - 0.5 &&
          b.top < a.bottom - 0.5;
        expect(overlap, `${a.name} overlaps ${b.name}`).toBe(false);
      }
    }
  }
}
