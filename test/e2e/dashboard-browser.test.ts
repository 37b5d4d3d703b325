import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import { CURRENT_GAS_LAST_GOOD_KEY } from '../../lib/services/current-gas';
import { gasPredictionsCacheKey } from '../../lib/services/gas-predictions';
import { L2_GAS_CACHE_KEY } from '../../lib/services/l2-gas';
import type { WithDb } from '../../lib/store/database';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { requireFreshReading, sharedReadsSettled } from '../../lib/store/shared-read';
import { launchBrowser, saveScreenshot, type TestBrowser } from '../helpers/browser';
import {
  bodyOf,
  DESKTOP,
  dataValue,
  expectEveryFeedAnswered,
  expectToFitViewport,
  FEEDS,
  type Json,
  l2L1PartUsd,
  MOBILE,
  openDashboard,
  problemsOf,
} from '../helpers/dashboard-page';
import { seedRealHistory } from '../helpers/seed-history';
import { startUpstreams, type Upstreams } from '../upstreams';

// In-page code (waitForFunction, evaluate) runs in the browser; this Node-typed project has no DOM
// types, so the little of the DOM it touches is declared here (module scope, no global clash).
declare const document: {
  querySelector(
    selector: string,
  ): { textContent: string | null; getAttribute(name: string): string | null } | null;
};
declare const window: Record<string, unknown>;

describe('GET / in a real browser (Node host, simulated upstreams)', () => {
  let up: Upstreams;
  let engine: DatabaseEngine;
  let browser: TestBrowser;
  let host: NodeHost;
  let base: string;
  const extraHosts: NodeHost[] = [];

  const startHost = async (withDb: WithDb) => {
    const started = await startNodeHost(
      { ...up.env, PORT: '0' },
      { log: createLogger(() => undefined), scheduler: false, deps: { withDb } },
    );
    return started;
  };

  beforeAll(async () => {
    up = await startUpstreams();
    engine = await openDatabase({ kind: 'pglite' });
    await engine.migrate();
    await seedRealHistory(engine, Date.now());
    host = await startHost(engine.withDb);
    base = `http://127.0.0.1:${host.port}`;
    // The host's first answers (the first upstream reads, the forecast's hourly preparation) run in
    // this process's event loop beside the simulators. At the start of a full run, with every other
    // worker compiling, the first test once timed out (30 s) while they were made during its page load;
    // made here, the page gets them from the host's caches, as every later test does.
    for (const path of FEEDS) await (await fetch(`${base}${path}`)).arrayBuffer();
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await up.reset();
    await Promise.all(extraHosts.splice(0).map((h) => h.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await Promise.all([up?.close(), engine?.close()]);
  });

  it("shows the API's own numbers, the decision, and the chart's points, loading nothing foreign", async () => {
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    const api = await openDashboard(watched, base);
    expectEveryFeedAnswered(api);
    const gas = api['/api/gas']!;
    const price = api['/api/eth-price']!;
    const dashboard = api['/api/dashboard']!;

    for (const tier of ['low', 'average', 'high'] as const) {
      expect(await dataValue(page, `[data-tier="${tier}"] .gwei`)).toBe(gas[tier]);
      const transfer = await dataValue(page, `[data-tier="${tier}"] [data-cost="transfer"]`);
      expect(transfer).toBeCloseTo(gas[tier] * 21_000e-9 * price.usd, 9);
      const swap = await dataValue(page, `[data-tier="${tier}"] [data-cost="swap"]`);
      expect(swap).toBeCloseTo(gas[tier] * 65_000e-9 * price.usd, 9);
      // Shown to 4 significant digits; the exact value (to the wei) is the element's data value above.
      expect(await page.locator(`[data-tier="${tier}"] .gwei`).textContent()).toContain(
        Number(gas[tier].toPrecision(4)).toLocaleString('en-US', { maximumFractionDigits: 9 }),
      );
    }
    expect(await dataValue(page, '[data-fact="baseFee"]')).toBe(gas.baseFee);
    expect(await dataValue(page, '[data-fact="block"]')).toBe(gas.blockNumber);
    expect(await page.locator('[data-fact="source"] dd').textContent()).toBe(gas.source);
    expect(await dataValue(page, '#price')).toBe(price.usd);
    expect(await page.locator('#price').textContent()).toContain(price.usd.toLocaleString('en-US'));

    for (const network of api['/api/l2-gas']!.networks as Json[]) {
      const row = `#l2-table tr[data-network="${network.id}"]`;
      expect(await page.locator(`${row} th`).textContent()).toBe(network.name);
      expect(await dataValue(page, `${row} td[data-label="Gas price"]`)).toBe(network.gasPriceGwei);
      // The transfer cost is the whole transfer's, and the L1 share is a share of that very figure: on
      // Arbitrum, whose wallet fee field is execution only, the L1 part is its extra gas units at the
      // base fee (what the MCP tool totals); the page showed execution only beside a share of the whole.
      const l1 = l2L1PartUsd(network);
      expect(l1, `${network.id}: an L1 part to check`).not.toBeNull();
      const transfer = await dataValue(page, `${row} td[data-label="Transfer cost"]`);
      expect(transfer).toBeCloseTo(network.executionGasCostUsd + l1!, 12);
      const share = await dataValue(page, `${row} td[data-label="L1 data fee share"]`);
      expect(share).toBeCloseTo(l1! / transfer, 12);
      if (network.id !== 'arbitrum') expect(transfer).toBe(network.estimatedWalletFeeUsd);
      expect(await page.locator(`${row} td[data-label="Fee completeness"]`).textContent()).toBe(
        network.id === 'arbitrum' || network.feeCompleteness === 'full_estimate'
          ? 'Full estimate'
          : 'Execution only',
      );
    }

    // The decision, in words that carry the decision's own figures.
    const decision = dashboard.decision as Json;
    const text = await page.locator('#decision').textContent();
    expect(await page.locator('#decision').getAttribute('data-recommendation')).toBe(decision.recommendation);
    if (decision.recommendation === 'wait') {
      expect(text).toMatch(
        /^Wait about \d+ (h|min) for ~\d+ % lower fees \(about \$[\d.,]+ on a transfer\), \d+ % likely$/,
      );
      expect(text).toContain(`~${Math.round(decision.expectedSavingsPct)} % lower`);
      expect(text).toContain(`${Math.min(99, Math.round(decision.confidence * 100))} % likely`);
    } else {
      expect(text).toMatch(/^Send now: /);
    }

    // The chart: every history bucket and every forecast hour is a vertex; shaded hours are the windows.
    const history = api['/api/gas-history']!.points as Json[];
    expect(history.length).toBeGreaterThan(200);
    const vertices = async (selector: string) =>
      (await page.locator(selector).getAttribute('points'))!.trim().split(/\s+/).length;
    expect(await vertices('#chart svg polyline.history')).toBe(history.length);
    expect(await vertices('#chart svg polyline.forecast')).toBe(dashboard.predictions.length);
    expect(dashboard.predictions).toHaveLength(24);
    const windows = (dashboard.predictions as Json[]).filter((p) => p.isLowFeeWindow).length;
    expect(await page.locator('#chart svg rect.window').count()).toBe(windows);
    expect(await page.locator('#chart svg path.band').count()).toBe(1);
    expect(await page.locator('#forecast-table tbody tr').count()).toBe(24);
    expect(await page.locator('#chart-summary').textContent()).toMatch(/Over the last 24 h .* gwei/);
    // The figure is named by its title alone: the summary is the SVG's name and the caption's text already,
    // and a figure named by the whole caption made a screen reader read it a third time.
    const title = (await page.locator('#chart-title').textContent()) ?? '';
    expect(title).toBe('Last 24 hours and the next 24');
    expect(await page.getByRole('figure', { name: title, exact: true }).count()).toBe(1);
    expect(await vertices('#spark svg polyline')).toBe(price.sparkline_7d.length);

    // The forecast-accuracy line stays hidden while its endpoint is absent or failing.
    const accuracy = await fetch(`${base}/api/forecast-accuracy`);
    expect(await page.locator('#accuracy-section').isVisible()).toBe(accuracy.status === 200);

    expect(problemsOf(watched)).toEqual([]);
    expect(watched.requests.every((url) => url.startsWith(`${base}/`))).toBe(true);
    await saveScreenshot(page, 'dashboard-desktop');
  });

  it('says the waits are unavailable on the explorer backstop, and shows the next base fee once', async () => {
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    // The live answer as the explorer backstop gives it: no per-block data, so no waits.
    await page.route(`${base}/api/gas`, async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as Json;
      const tiers = Object.fromEntries(
        Object.entries(body.tiers as Record<string, Json>).map(([name, t]) => [
          name,
          { ...t, estimatedWaitSeconds: null },
        ]),
      );
      await route.fulfill({ response: res, json: { ...body, source: 'etherscan', tiers } });
    });
    const api = await openDashboard(watched, base);
    expectEveryFeedAnswered(api);
    const gas = api['/api/gas']!;
    expect(gas.nextBaseFee).toBe(gas.baseFee);
    for (const tier of ['low', 'average', 'high'])
      expect(await page.locator(`[data-tier="${tier}"] dl`).textContent()).toContain('Waitunavailable');
    expect(await page.locator('[data-fact="baseFee"] dt').textContent()).toBe('Base fee, next block');
    expect(await page.locator('[data-fact="nextBaseFee"]').count()).toBe(0);
    expect(problemsOf(watched)).toEqual([]);
  });

  it('draws a spike over sub-gwei fees on a logarithmic scale, so the calm hours stay readable', async () => {
    // Stored hours at 1/300 of today's simulated fees (about 0.1 gwei against 30): a 300x spike.
    const calm = await openDatabase({ kind: 'pglite' });
    try {
      await calm.migrate();
      await seedRealHistory(calm, Date.now(), { scale: 1 / 300 });
      const spikeHost = await startHost(calm.withDb);
      extraHosts.push(spikeHost);
      const watched = await browser.open(DESKTOP);
      const api = await openDashboard(watched, `http://127.0.0.1:${spikeHost.port}`);
      const { page } = watched;
      expect(await page.locator('#chart svg').getAttribute('data-scale')).toBe('log');
      expect(await page.locator('#chart-summary').textContent()).toContain('The scale is logarithmic');
      // The calm hours' own ups and downs stay visible: on a linear axis up to the spike they would
      // span a fraction of a pixel.
      const ys = (await page.locator('#chart svg polyline.history').getAttribute('points'))!
        .trim()
        .split(/\s+/)
        .map((point) => Number(point.split(',')[1]));
      const calmHours = (api['/api/dashboard']!.compactHistory as Json[]).map((p) => p.gasPrice as number);
      const now = api['/api/dashboard']!.currentGas.average as number;
      const plot = Number(await page.locator('#chart svg').getAttribute('height'));
      const linear = ((Math.max(...calmHours) - Math.min(...calmHours)) / now) * plot;
      expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(10 * linear);
      expect(problemsOf(watched)).toEqual([]);
      await saveScreenshot(page, 'dashboard-spike-desktop');
    } finally {
      await Promise.all(extraHosts.splice(0).map((h) => h.close()));
      await calm.close();
    }
  });

  it('words a wait decision with its own figures when the past was far cheaper than now', async () => {
    const cheap = await openDatabase({ kind: 'pglite' });
    try {
      await cheap.migrate();
      await seedRealHistory(cheap, Date.now(), { scale: 0.3 });
      const waitHost = await startHost(cheap.withDb);
      extraHosts.push(waitHost);
      const watched = await browser.open(MOBILE);
      const api = await openDashboard(watched, `http://127.0.0.1:${waitHost.port}`);
      const decision = api['/api/dashboard']!.decision as Json;
      expect(decision.recommendation).toBe('wait');
      const hours = Math.round(decision.nextBestEtaMinutes / 60);
      const when =
        decision.nextBestEtaMinutes < 60 ? `${Math.max(1, decision.nextBestEtaMinutes)} min` : `${hours} h`;
      // What the wait saves on a transfer, in dollars, computed here from the API's own figures.
      const dashboard = api['/api/dashboard']!;
      const saved =
        ((dashboard.currentGas.average * decision.expectedSavingsPct) / 100) *
        21_000e-9 *
        dashboard.ethPrice.usd;
      const dollars =
        Number(saved.toPrecision(2)) >= 1
          ? saved.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
          : saved.toLocaleString('en-US', { minimumSignificantDigits: 2, maximumSignificantDigits: 2 });
      expect(await watched.page.locator('#decision').textContent()).toBe(
        `Wait about ${when} for ~${Math.round(decision.expectedSavingsPct)} % lower fees ` +
          `(about $${dollars} on a transfer), ${Math.min(99, Math.round(decision.confidence * 100))} % likely`,
      );
      // The line under it names the hour waited for and its expected price, not "the cheapest hour".
      expect(await watched.page.locator('#decision-detail').textContent()).toMatch(
        /^Waiting for around .+: about [\d.,]+ gwei expected, jump risk included, against [\d.,]+ gwei now\.$/,
      );
      expect(await watched.page.locator('#decision').getAttribute('data-state')).toBe('wait');
      expect(problemsOf(watched)).toEqual([]);
      await saveScreenshot(watched.page, 'dashboard-wait-mobile');
    } finally {
      await Promise.all(extraHosts.splice(0).map((h) => h.close()));
      await cheap.close();
    }
  });

  it('shows the wallet-grade fields and the accuracy line when the API carries them (SPEC 16, 18)', async () => {
    // Until those fields land on this branch, the page is given them on top of the live answers, in the
    // shapes SPEC extensions 16 and 18 fix; the real endpoints take over as soon as they exist.
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    const tier = (priority: number, maxFee: number, p50: number, p90: number) => ({
      maxPriorityFeePerGas: priority,
      maxFeePerGas: maxFee,
      estimatedWaitSeconds: { p50, p90 },
    });
    const extension = {
      nextBaseFee: 31.25,
      baseFeeTrend: 'falling',
      blobBaseFee: 0.000000012,
      nextBlobBaseFee: 0.000000011,
      blobGasUsedRatio: 0.5,
      baseFeePercentile7d: 12,
      tiers: {
        low: tier(1.5, 64.1, 24, 60),
        average: tier(3.25, 66.5, 12, 24),
        high: tier(9.5, 72.75, 12, 12),
      },
    };
    await page.route(`${base}/api/gas`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), ...extension } });
    });
    // A send-now decision whose headline ranks the reading it was made from: the dashboard's own.
    await page.route(`${base}/api/dashboard`, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      const currentGas = { ...body.currentGas, baseFeePercentile7d: extension.baseFeePercentile7d };
      const decision = { ...body.decision, recommendation: 'send_now', expectedSavingsPct: 0 };
      await route.fulfill({ response: res, json: { ...body, currentGas, decision } });
    });
    const accuracy = {
      citation: 'Data from Gas Fee API, updated 2026-11-23T08:00:00.000Z',
      tier: 'free',
      window: '7d',
      source: 'live',
      origins: 161,
      mae: { model: 3.21, persistence: 5.62, sameHourYesterday: 4.88 },
      maeByLeadHours: [],
      calibration: [],
      decision: {
        waits: 40,
        realizedSavingPct: 11.4,
        oracleSavingPct: 19.9,
        dearerWaitsPct: 7.5,
        severeWaitsPct: 0,
      },
      scoredFrom: '2026-11-16T08:00:00.000Z',
      scoredTo: '2026-11-23T08:00:00.000Z',
    };
    await page.route(`${base}/api/forecast-accuracy`, (route) => route.fulfill({ json: accuracy }));
    const api = await openDashboard(watched, base);

    expect(await dataValue(page, '[data-fact="nextBaseFee"]')).toBe(31.25);
    expect(await page.locator('[data-fact="baseFee"] dd').textContent()).toContain('falling');
    expect(await dataValue(page, '[data-fact="blobBaseFee"]')).toBe(0.000000012);
    expect(await page.locator('[data-fact="blobBaseFee"] dd').textContent()).toBe('0.000000012 gwei');
    const average = page.locator('[data-tier="average"] dl');
    expect(await average.textContent()).toContain('Max fee66.5 gwei');
    expect(await average.textContent()).toContain('Priority fee3.25 gwei');
    expect(await average.textContent()).toContain('Wait~12 s (90 %: 24 s)');
    expect(api['/api/dashboard']!.decision.recommendation).toBe('send_now');
    expect(await page.locator('#decision').textContent()).toBe('Send now: fees are near their weekly low');
    await page.locator('#accuracy-section').waitFor();
    expect(await page.locator('#accuracy').textContent()).toBe(
      'Over the last 7 days (161 forecasts served), the forecast was off by 3.21 gwei on average, against 5.62 gwei ' +
        'for assuming no change and 4.88 gwei for the same hour yesterday. Following its advice saved 11.4 % on ' +
        'average, of the 19.9 % a perfect forecast would have saved.',
    );
    expect(problemsOf(watched)).toEqual([]);
    await saveScreenshot(page, 'dashboard-extensions-desktop');
  });

  it('weighs at most 100 KB gzip on a first load, everything included', async () => {
    const watched = await browser.open(DESKTOP);
    await openDashboard(watched, base);
    await watched.page.waitForLoadState('load');
    // Every URL the first load fetched, asked again and gzipped (what a compressing edge would send).
    const sizes = await Promise.all(
      watched.requests.map(
        async (url) => gzipSync(new Uint8Array(await (await fetch(url)).arrayBuffer())).length,
      ),
    );
    const total = sizes.reduce((a, b) => a + b, 0);
    console.log(`dashboard first load: ${sizes.length} responses, ${(total / 1024).toFixed(1)} KiB gzip`);
    expect(total).toBeLessThanOrEqual(100 * 1024);
  });

  it.each([
    ['mobile', MOBILE],
    ['desktop', DESKTOP],
  ] as const)(
    'fits the %s viewport: no horizontal scroll, no overlapping blocks, AA text contrast',
    async (name, viewport) => {
      const watched = await browser.open(viewport, { colorScheme: name === 'mobile' ? 'dark' : 'light' });
      await openDashboard(watched, base);
      await expectToFitViewport(watched.page);
      expect(problemsOf(watched)).toEqual([]);
      await saveScreenshot(watched.page, `dashboard-${name}`);
    },
  );

  it('says plainly when mainnet gas and a Layer 2 reading are stale, on their own refresh, without a reload', async () => {
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    await page.clock.install();
    await openDashboard(watched, base);
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    expect(await page.locator('#gas-state').textContent()).not.toMatch(/stale/i);

    // Every mainnet provider and the explorer fail; the service's 30 s reading expires.
    await Promise.all([...up.mainnet.map((sim) => sim.fault('http-500')), up.etherscan.fault('http-500')]);
    // A read the page started before the faults may still land, fresh: it settles first (under load
    // it once did, and was served as the live reading this test expects to be gone).
    await sharedReadsSettled(host.deps);
    requireFreshReading(host.deps, CURRENT_GAS_LAST_GOOD_KEY);
    const refreshed = page.waitForResponse((res) => res.url() === `${base}/api/gas`);
    await page.clock.fastForward(31_000);
    const gas = await bodyOf(await refreshed);
    expect(gas.source).toMatch(/^stale:/);
    await page.waitForFunction(() => /^Stale/.test(document.querySelector('#gas-state')?.textContent ?? ''));
    expect(await page.locator('#gas-state').textContent()).toMatch(/live sources are failing/);
    expect(await dataValue(page, '[data-tier="average"] .gwei')).toBe(gas.average);
    expect(await page.evaluate(() => window.sameDocument)).toBe(true);
    // The rest keeps working.
    expect(await page.locator('#l2-table tbody tr').count()).toBe(4);

    // Arbitrum's providers fail too: at the table's own 60 s refresh its last good reading is marked.
    await Promise.all(up.l2.arbitrum.map((sim) => sim.fault('http-500')));
    await sharedReadsSettled(host.deps);
    host.deps.cache.delete(L2_GAS_CACHE_KEY);
    requireFreshReading(host.deps, 'l2-gas:v2:arbitrum');
    // The advice is made again, from the last good reading now served (its 30 s count on the server's clock).
    host.deps.cache.delete(gasPredictionsCacheKey('24h'));
    const l2Refreshed = page.waitForResponse((res) => res.url() === `${base}/api/l2-gas`);
    const advised = page.waitForResponse((res) => res.url() === `${base}/api/dashboard`);
    await page.clock.fastForward(30_000);
    const l2 = await bodyOf(await l2Refreshed);
    expect((await bodyOf(await advised)).currentGas.source).toMatch(/^stale:/);
    // Every answer was a 200, but not a live one: the status line and the advice say so.
    await page.waitForFunction(() =>
      /^Showing last good figures from /.test(document.querySelector('#status')?.textContent ?? ''),
    );
    expect(await page.locator('#decision-detail').textContent()).toMatch(
      / Showing last good figures from .+: the live gas sources are failing\.$/,
    );
    expect(l2.networks[0].feeNote).toMatch(/^Live providers did not answer/);
    await page.waitForFunction(
      () => document.querySelector('#l2-state')?.textContent === 'Some networks stale',
    );
    expect(await page.locator('tr[data-network="arbitrum"] th').textContent()).toBe(
      'Arbitrum Onestale: last good reading',
    );
    expect(await page.locator('tr[data-network="optimism"] th').textContent()).toBe('OP Mainnet');
    expect(problemsOf(watched)).toEqual([]);
    await saveScreenshot(page, 'dashboard-stale-desktop');
    requireFreshReading(host.deps, CURRENT_GAS_LAST_GOOD_KEY);
    requireFreshReading(host.deps, 'l2-gas:v2:arbitrum');
    host.deps.cache.delete(L2_GAS_CACHE_KEY);
    host.deps.cache.delete(gasPredictionsCacheKey('24h'));
  });

  it('says the status is not live when the price served is a last good one', async () => {
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    // The API's answer when every price source fails and a last good value exists (SPEC section 3).
    await page.route(`${base}/api/eth-price`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({
        response: res,
        json: { ...(await res.json()), source: 'stale-error', staleAgeMs: 42_000 },
      });
    });
    await openDashboard(watched, base);
    expect(await page.locator('#price-state').textContent()).toMatch(/^Stale: last good price/);
    expect(await page.locator('#status').textContent()).toMatch(/^Showing last good figures from /);
    expect(problemsOf(watched)).toEqual([]);
  });

  it.each([
    [-0.001, '0 % 24 h', 'change'],
    [0.004, '0 % 24 h', 'change'],
    [-0.25, '−0.25 % 24 h', 'change down'],
  ])('shows a 24 h price change of %f as "%s"', async (change, text, className) => {
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    await page.route(`${base}/api/eth-price`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), change_24h: change } });
    });
    await openDashboard(watched, base);
    const shown = page.locator('#price .change');
    expect(await shown.textContent()).toBe(text);
    expect(await shown.getAttribute('class')).toBe(className);
    expect(Number(await shown.locator('data').getAttribute('value'))).toBe(change);
    expect(problemsOf(watched)).toEqual([]);
  });

  it('keeps the last good figures for 5 minutes when refreshes fail to reach the API, then says so', async () => {
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    await page.clock.install();
    const api = await openDashboard(watched, base);
    const shown = await dataValue(page, '[data-tier="average"] .gwei');
    expect(shown).toBe(api['/api/gas']!.average);
    // The network fails under mainnet gas, the price and the advice: their refreshes get no answer.
    await page.route(/\/api\/(gas|eth-price|dashboard)$/, (route) => route.abort());
    const failed = page.waitForEvent('requestfailed', (req) => req.url() === `${base}/api/gas`);
    await page.clock.fastForward(31_000);
    await failed;
    await page.waitForFunction(() =>
      /^Refresh failed: showing figures from /.test(document.querySelector('#gas-state')?.textContent ?? ''),
    );
    expect(await dataValue(page, '[data-tier="average"] .gwei')).toBe(shown);
    expect(await page.locator('#price-state').textContent()).toMatch(
      /^Refresh failed: showing figures from /,
    );
    expect(await dataValue(page, '#price')).toBe(api['/api/eth-price']!.usd);
    expect(await page.locator('#status').textContent()).toMatch(/^Some figures could not be refreshed/);
    expect(await page.locator('#decision-detail').textContent()).toMatch(
      / Advice from .+: its refresh failed\.$/,
    );
    expect(await page.locator('#history-state').textContent()).toMatch(
      /^Refresh failed: showing the forecast from /,
    );
    await saveScreenshot(page, 'dashboard-refresh-failed');
    // Five minutes on, the kept figures give way; the badge says the API is out of reach, not why.
    await page.clock.fastForward(5 * 60_000);
    await page.waitForFunction(
      () => document.querySelector('#gas-state')?.textContent === 'Unavailable: the API cannot be reached',
    );
    expect(await page.locator('[data-tier="average"] .gwei').textContent()).toBe('— gwei');
    expect(await page.locator('#price').textContent()).toBe('Price unavailable');
    const aborted = /request failed: http:[^ ]*\/api\/(gas|eth-price|dashboard) net::ERR_FAILED$/;
    const consoleAbort =
      /Failed to load resource: net::ERR_FAILED \(http:[^)]*\/api\/(gas|eth-price|dashboard)\)$/;
    expect(problemsOf(watched, [aborted, consoleAbort])).toEqual([]);
    await page.unroute(/\/api\/(gas|eth-price|dashboard)$/);
  });

  it('keeps the last good figures after a failed refresh in a browser whose clock runs 10 minutes fast', async () => {
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    await page.clock.install({ time: Date.now() + 10 * 60_000 });
    const api = await openDashboard(watched, base);
    await page.route(`${base}/api/gas`, (route) => route.abort());
    const failed = page.waitForEvent('requestfailed', (req) => req.url() === `${base}/api/gas`);
    await page.clock.fastForward(31_000);
    await failed;
    // The data's age is taken by the server's clock: 31 s, not 10 minutes and 31 s.
    await page.waitForFunction(() =>
      /^Refresh failed: showing figures from /.test(document.querySelector('#gas-state')?.textContent ?? ''),
    );
    expect(await dataValue(page, '[data-tier="average"] .gwei')).toBe(api['/api/gas']!.average);
    const aborted = /request failed: http:[^ ]*\/api\/gas net::ERR_FAILED$/;
    const consoleAbort = /Failed to load resource: net::ERR_FAILED \(http:[^)]*\/api\/gas\)$/;
    expect(problemsOf(watched, [aborted, consoleAbort])).toEqual([]);
    await page.unroute(`${base}/api/gas`);
  });

  it("gives a stale reading's age by the server's clock in a browser whose clock runs 10 minutes fast", async () => {
    const watched = await browser.open(DESKTOP);
    const { page } = watched;
    await page.clock.install({ time: Date.now() + 10 * 60_000 });
    // The API's answer when every mainnet source fails: the last good reading, its updatedAt unchanged.
    await page.route(`${base}/api/gas`, async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as Json;
      await route.fulfill({ response: res, json: { ...body, source: `stale:${body.source}` } });
    });
    const api = await openDashboard(watched, base);
    const served = Date.parse(api['/api/gas']!.updatedAt);
    const badge = (await page.locator('#gas-state').textContent()) ?? '';
    expect(badge).toMatch(/^Stale: last good reading from .+ \(\d+ s old\); live sources are failing$/);
    // Its age when the page drew it, at most the time since the reading by this machine's clock.
    const seconds = Number(/\((\d+) s old\)/.exec(badge)?.[1]);
    expect(seconds).toBeLessThanOrEqual(Math.ceil((Date.now() - served) / 1000) + 1);
    expect(problemsOf(watched)).toEqual([]);
    await saveScreenshot(page, 'dashboard-stale-fast-clock');
    await page.unroute(`${base}/api/gas`);
  });

  it('says the price is unavailable when no price source answers, and shows the rest', async () => {
    await Promise.all([up.coingecko.fault('refuse'), up.coinbase.fault('refuse'), up.kraken.fault('refuse')]);
    const cold = await startHost(engine.withDb);
    extraHosts.push(cold);
    const coldBase = `http://127.0.0.1:${cold.port}`;
    const watched = await browser.open(MOBILE);
    const api = await openDashboard(watched, coldBase);
    expect(api['/api/eth-price']).toMatchObject({ usd: null, source: 'unavailable' });
    const { page } = watched;
    expect(await page.locator('#price-state').textContent()).toMatch(/^Unavailable/);
    expect(await page.locator('#price').textContent()).toBe('Price unavailable');
    expect(await page.locator('[data-tier="average"] [data-cost="transfer"]').textContent()).toBe('no price');
    expect(await dataValue(page, '[data-tier="average"] .gwei')).toBe(api['/api/gas']!.average);
    expect(await page.locator('#decision').getAttribute('data-recommendation')).toBe(
      api['/api/dashboard']!.decision.recommendation,
    );
    expect(problemsOf(watched)).toEqual([]);
    await saveScreenshot(page, 'dashboard-price-unavailable');
  });

  it('says mainnet gas and the advice are unavailable when no reading exists, and shows the rest', async () => {
    await Promise.all([...up.mainnet.map((sim) => sim.fault('http-500')), up.etherscan.fault('http-500')]);
    const cold = await startHost(engine.withDb);
    extraHosts.push(cold);
    const coldBase = `http://127.0.0.1:${cold.port}`;
    const watched = await browser.open(MOBILE);
    const api = await openDashboard(watched, coldBase);
    expect(api['/api/gas']).toEqual({ status: 503 });
    expect(api['/api/dashboard']).toEqual({ status: 503 });
    const { page } = watched;
    expect(await page.locator('#decision').getAttribute('data-state')).toBe('unavailable');
    expect(await page.locator('#gas-state').textContent()).toMatch(/^Unavailable/);
    expect(await page.locator('[data-tier="average"] .gwei').textContent()).toBe('— gwei');
    expect(await page.locator('#chart svg polyline.history').count()).toBe(1);
    expect(await dataValue(page, '#price')).toBe(api['/api/eth-price']!.usd);
    expect(await page.locator('#l2-table tbody tr').count()).toBe(4);
    const expected503 = /503 \(Service Unavailable\) \(http:[^)]*\/api\/(gas|dashboard)\)$/;
    expect(problemsOf(watched, [expected503])).toEqual([]);
    await saveScreenshot(page, 'dashboard-gas-unavailable-mobile');
  });

  it('says the history is unavailable when the store is down, and shows the rest', async () => {
    const down = await startHost(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')));
    extraHosts.push(down);
    const downBase = `http://127.0.0.1:${down.port}`;
    const watched = await browser.open(DESKTOP);
    const api = await openDashboard(watched, downBase);
    expect(api['/api/gas-history']).toEqual({ status: 503 });
    const { page } = watched;
    expect(await page.locator('#history-state').textContent()).toMatch(/History unavailable/);
    expect(await page.locator('#chart svg polyline.history').count()).toBe(0);
    expect(await page.locator('#chart svg polyline.forecast').count()).toBe(1);
    expect(await dataValue(page, '[data-tier="low"] .gwei')).toBe(api['/api/gas']!.low);
    expect(await dataValue(page, '#price')).toBe(api['/api/eth-price']!.usd);
    // The forecast stood on the built-in profile: the advice says it is a rough estimate, with no likelihood.
    expect(api['/api/dashboard']!.usingFallbackData).toBe(true);
    const advice = await page.locator('#decision').textContent();
    expect(advice).toMatch(
      /A rough estimate from a typical week's pattern, not this chain's stored history$/,
    );
    expect(advice).not.toMatch(/likely/);
    // The failed requests are the store's 503s (history, and accuracy once it exists), answered and shown.
    expect(
      problemsOf(watched, [
        /503 \(Service Unavailable\) \(http:[^)]*\/api\/(gas-history\?range=1d|forecast-accuracy)\)$/,
      ]),
    ).toEqual([]);
    await saveScreenshot(page, 'dashboard-store-down');
  });
});
