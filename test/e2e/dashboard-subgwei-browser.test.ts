import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { type NodeHost, startNodeHost } from '../../lib/node/host';
import { type DatabaseEngine, openDatabase } from '../../lib/store/engines';
import { launchBrowser, saveScreenshot, type TestBrowser } from '../helpers/browser';
import {
  DESKTOP,
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

/** A gwei figure as a person should read it: 4 significant digits, all shown once rounded; exact shorter ones as they are. */
function gweiText(value: number): string {
  expect(value).toBeGreaterThan(0);
  expect(value).toBeLessThan(1000);
  return Number(value.toPrecision(4)) === value ? String(value) : value.toPrecision(4);
}

/** A forecast figure (never exact): always `digits` significant digits. */
function estimateText(value: number, digits = 4): string {
  return value.toPrecision(digits);
}

/** Dollars under one: two significant digits, a trailing zero kept ("$0.0034", "$0.010"). */
function centsText(value: number): string {
  expect(value).toBeLessThan(0.95);
  return `$${value.toPrecision(2)}`;
}

/** A pattern matching `text` literally. */
function literally(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
}

/**
 * In-page: the texts under `selector` the browser broke over more than one line (a box that starts
 * below the bottom of the first one; boxes of one line overlap, whatever their type size).
 */
function wrappedScript(selector: string): string {
  return `(() => [...document.querySelectorAll(${JSON.stringify(selector)})].filter((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const boxes = [...range.getClientRects()].filter((r) => r.width > 0);
    const first = boxes.reduce((a, b) => (b.top < a.top ? b : a), boxes[0]);
    return boxes.some((r) => r.top >= first.bottom - 1);
  }).map((el) => el.textContent))()`;
}

/** Every figure that is one thing to read (a fee, a cost, a range) stays on one line. */
async function expectNoFigureBroken(page: Page): Promise<void> {
  const figures = [
    '#tiers .gwei',
    '#tiers dd',
    '#gas-facts dd',
    '#forecast-table td:nth-child(2)',
    '#forecast-table td:nth-child(3)',
    '#forecast-table td span',
  ].join(', ');
  expect(await page.evaluate(wrappedScript(figures))).toEqual([]);
}

/** The chart's gwei axis labels, bottom to top. */
async function axisLabels(page: Page): Promise<string[]> {
  const labels = await page.locator('#chart svg text.axis:not(.tick)').allTextContents();
  return labels.filter((text) => text !== 'now');
}

describe('GET / in a real browser at sub-gwei fees (the 2026 chain, simulated)', () => {
  let up: Upstreams;
  const engines: DatabaseEngine[] = [];
  let browser: TestBrowser;
  /** `today`: the real 2026 hours up to the chain's own (a 0.6 gwei spike the afternoon before); `calm`: a calm day of them, at half the fees. */
  const hosts: Partial<Record<'today' | 'calm', NodeHost>> = {};
  const baseOf = (name: 'today' | 'calm') => `http://127.0.0.1:${hosts[name]!.port}`;

  beforeAll(async () => {
    up = await startUpstreams({ mainnetRegime: 'sub-gwei-2026' });
    const histories = {
      today: {},
      calm: { endAt: Date.parse('2026-01-20T13:00:00Z'), scale: 0.5 },
    } as const;
    for (const [name, options] of Object.entries(histories) as ['today' | 'calm', object][]) {
      const engine = await openDatabase({ kind: 'pglite' });
      engines.push(engine);
      await engine.migrate();
      await seedRealHistory(engine, Date.now(), { regime: 'sub-gwei-2026', ...options });
      const host = await startNodeHost(
        { ...up.env, PORT: '0' },
        { log: createLogger(() => undefined), scheduler: false, deps: { withDb: engine.withDb } },
      );
      hosts[name] = host;
      // The first answers made here, not during a page load (see dashboard-browser.test.ts).
      for (const path of FEEDS) await (await fetch(`http://127.0.0.1:${host.port}${path}`)).arrayBuffer();
    }
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all(Object.values(hosts).map((host) => host.close()));
    await Promise.all([up?.close(), ...engines.map((engine) => engine.close())]);
  });

  it.each([
    ['desktop', DESKTOP, 'light'],
    ['mobile', MOBILE, 'dark'],
  ] as const)(
    'shows every figure on the %s at a precision a person can read, nothing rounded away or broken',
    async (name, viewport, colorScheme) => {
      const watched = await browser.open(viewport, { colorScheme });
      const { page } = watched;
      const api = await openDashboard(watched, baseOf('today'));
      expectEveryFeedAnswered(api);
      const gas = api['/api/gas']!;
      const usd = api['/api/eth-price']!.usd as number;
      const dashboard = api['/api/dashboard']!;
      // Today's regime: a base fee of a few hundredths of a gwei, tips of thousandths.
      expect(gas.baseFee).toBeGreaterThan(0.03);
      expect(gas.baseFee).toBeLessThan(0.3);
      expect(gas.tiers.low.maxPriorityFeePerGas).toBeLessThan(0.01);
      expect(gas.tiers.high.maxPriorityFeePerGas).toBeLessThan(0.1);

      for (const tier of ['low', 'average', 'high'] as const) {
        const card = page.locator(`[data-tier="${tier}"]`);
        expect(await card.locator('.gwei').textContent()).toBe(`${gweiText(gas[tier])} gwei`);
        const terms = await card.locator('dt').allTextContents();
        const values = await card.locator('dd').allTextContents();
        expect(Object.fromEntries(terms.map((term, i) => [term, values[i]]))).toEqual({
          // A transfer costs a fraction of a cent: never "$0.00".
          Transfer: centsText(gas[tier] * 21_000e-9 * usd),
          'Token swap': centsText(gas[tier] * 65_000e-9 * usd),
          'Max fee': `${gweiText(gas.tiers[tier].maxFeePerGas)} gwei`,
          'Priority fee': `${gweiText(gas.tiers[tier].maxPriorityFeePerGas)} gwei`,
          Wait: `~${gas.tiers[tier].estimatedWaitSeconds.p50} s (90 %: ${gas.tiers[tier].estimatedWaitSeconds.p90} s)`,
        });
      }
      expect(await page.locator('[data-fact="baseFee"] dd').textContent()).toMatch(
        new RegExp(`^${literally(gweiText(gas.baseFee)).source} gwei \\((rising ↑|falling ↓|flat →)\\)$`),
      );
      expect(await page.locator('[data-fact="blobBaseFee"] dd').textContent()).toBe(
        `${gweiText(gas.blobBaseFee)} gwei`,
      );

      // Layer 2: each transfer cost is the whole transfer's, in cents a person can read, and the L1 share
      // is a share of that figure. Arbitrum's wallet fee field is execution only (SPEC 2.10); its L1 part
      // is its extra gas units at the base fee, about as much again, so the page adds it and says so.
      for (const network of api['/api/l2-gas']!.networks as Json[]) {
        const row = page.locator(`#l2-table tr[data-network="${network.id}"]`);
        const l1 = l2L1PartUsd(network)!;
        const transfer = network.executionGasCostUsd + l1;
        const cells = await row.locator('td').allTextContents();
        const arbitrum = network.id === 'arbitrum';
        expect(cells[1]).toBe(`${centsText(transfer)}${arbitrum ? 'with L1 gas' : ''}`);
        expect(cells[2]).toMatch(
          new RegExp(`^${literally(`${Number(((100 * l1) / transfer).toFixed(1))} %`).source}`),
        );
      }
      const arbitrum = (api['/api/l2-gas']!.networks as Json[]).find((n) => n.id === 'arbitrum')!;
      expect(arbitrum.estimatedL1GasUnits).toBeGreaterThan(0);
      expect(arbitrum.estimatedWalletFeeUsd).toBe(arbitrum.executionGasCostUsd);

      // The advice and its detail line, in the decision's own figures. Eight days of history: no rough estimate.
      const decision = dashboard.decision as Json;
      const cheapest = dashboard.nextBestWindow as Json | null;
      const now = dashboard.currentGas.average as number;
      expect(dashboard.usingFallbackData).toBe(false);
      const advice = await page.locator('#decision').textContent();
      const detail = (await page.locator('#decision-detail').textContent()) ?? '';
      if (decision.recommendation === 'wait') {
        const saved = ((now * decision.expectedSavingsPct) / 100) * 21_000e-9 * dashboard.ethPrice.usd;
        expect(advice).toMatch(literally(`(about ${centsText(saved)} on a transfer)`));
        expect(detail).toMatch(
          literally(
            `: about ${estimateText(decision.expectedGas)} gwei expected, jump risk included, against ${gweiText(now)} gwei now.`,
          ),
        );
      } else if (cheapest) {
        const rank = dashboard.currentGas.baseFeePercentile7d;
        expect(advice).toBe(
          rank <= 25
            ? 'Send now: fees are near their weekly low'
            : 'Send now: waiting is not expected to pay off in the next 24 h',
        );
        const risk =
          decision.nextBestAt === cheapest.timestamp
            ? `; with the risk of a fee jump before then, about ${estimateText(decision.expectedGas)} gwei is expected, too little saving to wait for`
            : '';
        expect(detail).toMatch(
          literally(
            `, ${estimateText(cheapest.gasPrices.average)} gwei against ${gweiText(now)} gwei now${risk}.`,
          ),
        );
      } else {
        expect(detail).toBe(`Now (${gweiText(now)} gwei) is the cheapest time the forecast expects.`);
      }

      // The chart: a 0.6 gwei spike yesterday over 0.07 gwei fees is drawn on a logarithmic axis, labelled
      // with round values, reaching down to the band's lower edge (or 1.6x under the lowest line where the
      // band goes further): one just under the lines laid the band flat along the axis.
      const history = (api['/api/gas-history']!.points as Json[]).map((p) => p.gasPrice as number);
      const predictions = dashboard.predictions as Json[];
      const forecast = predictions.map((p) => p.average as number);
      expect(await page.locator('#chart svg').getAttribute('data-scale')).toBe('log');
      const labels = await axisLabels(page);
      for (const label of labels) expect(label).toMatch(/^(0\.0*[125]|[125]0*)$/);
      const rows = page.locator('#forecast-table tbody tr');
      expect(await rows.count()).toBe(24);
      const cells = await Promise.all(predictions.map((_, i) => rows.nth(i).locator('td').allTextContents()));
      const ranges = cells.map(([, , range]) => (range ?? '').split(' – ').map(Number) as [number, number]);
      const bandMin = Math.min(...ranges.map(([low]) => low));
      const lineMin = Math.min(...history, ...forecast, gas.average);
      expect(Math.min(...labels.map(Number))).toBeLessThanOrEqual(
        Math.min(lineMin / 1.15, Math.max(bandMin * 1.005, lineMin / 1.6)),
      );
      expect(await page.locator('#chart-summary').textContent()).toMatch(
        new RegExp(
          `^${literally(`Over the last 24 h the average tier ran from ${gweiText(Math.min(...history))} to ${gweiText(Math.max(...history))} gwei. Now: ${gweiText(gas.average)} gwei. The scale is logarithmic: fees span more than 8x. The forecast for the next 24 h ranges from ${estimateText(Math.min(...forecast))} to ${estimateText(Math.max(...forecast))} gwei, cheapest around `).source}.+ \\(${literally(estimateText(cheapest ? cheapest.gasPrices.average : Math.min(...forecast))).source} gwei\\); \\d+ hours? (is a|are) predicted low-fee windows?\\.$`,
        ),
      );

      // The forecast as a table: each hour's average to 4 digits, its likely range to 3 (an approximation).
      predictions.forEach((p, i) => {
        const [, average, range, window] = cells[i]!;
        expect(average).toBe(estimateText(p.average));
        expect(range).toMatch(/^\d\.\d+ – \d\.\d+$/);
        const [low, high] = ranges[i]!;
        expect(range).toBe(`${estimateText(low, 3)} – ${estimateText(high, 3)}`);
        expect(low).toBeLessThan(p.average);
        expect(high).toBeGreaterThan(p.average);
        expect(window).toBe(p.isLowFeeWindow ? 'yes' : '');
      });
      await page.locator('#forecast-table').evaluate((table) => {
        (table.closest('details') as unknown as { open: boolean }).open = true;
      });

      await expectNoFigureBroken(page);
      await expectToFitViewport(page);
      expect(problemsOf(watched)).toEqual([]);
      await saveScreenshot(page, `dashboard-subgwei-${name}`);
    },
  );

  it('words a wait in fractions of a cent, and labels a calm linear axis to one number of decimals', async () => {
    const watched = await browser.open(MOBILE);
    const { page } = watched;
    const api = await openDashboard(watched, baseOf('calm'));
    expectEveryFeedAnswered(api);
    const dashboard = api['/api/dashboard']!;
    const decision = dashboard.decision as Json;
    // The past day cost half of today's fees: waiting pays, by a fraction of a cent on a transfer.
    expect(decision.recommendation).toBe('wait');
    const now = dashboard.currentGas.average as number;
    const saved = ((now * decision.expectedSavingsPct) / 100) * 21_000e-9 * dashboard.ethPrice.usd;
    const minutes = decision.nextBestEtaMinutes as number;
    const when = minutes < 60 ? `${Math.max(1, minutes)} min` : `${Math.round(minutes / 60)} h`;
    expect(await page.locator('#decision').textContent()).toBe(
      `Wait about ${when} for ~${Math.round(decision.expectedSavingsPct)} % lower fees ` +
        `(about ${centsText(saved)} on a transfer), ${Math.min(99, Math.round(decision.confidence * 100))} % likely`,
    );
    expect(await page.locator('#decision-detail').textContent()).toMatch(
      new RegExp(
        `^Waiting for around .+: ${literally(`about ${estimateText(decision.expectedGas)} gwei expected, jump risk included, against ${gweiText(now)} gwei now.`).source}$`,
      ),
    );

    // Calm hours within 8x of each other: a linear axis from 0, every label to the step's decimals
    // (0.00, 0.02, 0.04, not 0, 0.02, 0.04).
    expect(await page.locator('#chart svg').getAttribute('data-scale')).toBe('linear');
    const labels = await axisLabels(page);
    expect(labels.length).toBeGreaterThanOrEqual(3);
    const decimals = labels.map((label) => label.split('.')[1]?.length ?? 0);
    expect(new Set(decimals).size).toBe(1);
    expect(decimals[0]).toBeGreaterThan(0);
    expect(Number(labels[0])).toBe(0);
    const step = Number(labels[1]) - Number(labels[0]);
    for (const [i, label] of labels.entries()) expect(Number(label)).toBeCloseTo(i * step, 9);

    await expectNoFigureBroken(page);
    expect(problemsOf(watched)).toEqual([]);
    await saveScreenshot(page, 'dashboard-subgwei-wait-mobile');
  });
});
