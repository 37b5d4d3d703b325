// The live dashboard: each feed polls its API endpoint on that endpoint's own cadence (its Cache-Control
// max-age), keeps its last good payload, and the page re-renders every section after any change. A
// failing feed marks its own section and leaves the rest working.
import { describeChart, drawChart, drawSparkline, fillForecastTable } from './chart.js';
import { badge, clockSeconds } from './dom.js';
import { renderAccuracy, renderDecision, renderGas, renderL2, renderPrice } from './sections.js';

const FEEDS = [
  { key: 'dashboard', url: '/api/dashboard', every: 30 },
  { key: 'gas', url: '/api/gas', every: 30 },
  { key: 'price', url: '/api/eth-price', every: 30 },
  { key: 'l2', url: '/api/l2-gas', every: 60 },
  { key: 'history', url: '/api/gas-history?range=1d', every: 30 },
  { key: 'accuracy', url: '/api/forecast-accuracy', every: 300 },
];

/**
 * Per feed: `data` (last good body), `error` (null, 'unavailable' or 'absent'), `status` (of the last
 * failed answer; 0 when the API could not be reached), `at` (ms of last success), `dataAt` (when that
 * body's data was read upstream, in this browser's clock).
 */
const feeds = Object.fromEntries(
  FEEDS.map((f) => [f.key, { data: null, error: null, status: 0, at: 0, dataAt: 0, every: f.every }]),
);
const $ = (id) => document.getElementById(id);

/**
 * How long a section keeps showing its last good figures while its refreshes fail: the API's own
 * limit on serving a last good mainnet reading. Past it the section says the figures are unavailable.
 */
const KEEP_MS = 5 * 60_000;

/** The refresh delay an answer asks for: its max-age, within 15 s to 10 min. */
function cadence(res, fallback) {
  const maxAge = Number(res.headers.get('Cache-Control')?.match(/max-age=(\d+)/)?.[1]);
  return Number.isFinite(maxAge) && maxAge > 0 ? Math.min(600, Math.max(15, maxAge)) : fallback;
}

async function poll(feed) {
  const slot = feeds[feed.key];
  let delay = feed.every;
  try {
    // no-cache: revalidate with the server (ETag) rather than reuse a copy that may be at its max-age.
    const res = await fetch(feed.url, { cache: 'no-cache', headers: { Accept: 'application/json' } });
    if (res.ok) {
      slot.data = await res.json();
      slot.error = null;
      slot.at = Date.now();
      slot.dataAt = dataTimeOf(slot.data, res, slot.at);
      delay = cadence(res, feed.every);
    } else {
      slot.error = res.status === 404 ? 'absent' : 'unavailable';
      slot.status = res.status;
      if (res.status === 404) slot.data = null;
      const retry = Number(res.headers.get('Retry-After'));
      delay = Number.isFinite(retry) && retry > 0 ? Math.min(retry, feed.every) : Math.min(30, feed.every);
    }
  } catch {
    slot.error = 'unavailable';
    slot.status = 0;
    delay = Math.min(30, feed.every);
  }
  slot.every = delay;
  // Kept figures give way the moment they pass KEEP_MS, not at the next answer.
  const left = slot.dataAt + KEEP_MS - Date.now();
  if (slot.error && slot.data && left > 0) setTimeout(render, left + 50);
  try {
    render();
  } finally {
    schedule(feed, delay);
  }
}

/**
 * When a body's data was read upstream, in this browser's clock: its age by the server's clock (its
 * own time, `updatedAt` / `lastUpdated`, else Last-Modified, against the answer's Date), taken from
 * the time it arrived here, so a browser clock set wrong does not move it. Else the arrival time.
 */
function dataTimeOf(body, res, arrived) {
  const stamped = Date.parse(body?.updatedAt ?? body?.lastUpdated ?? res.headers.get('Last-Modified') ?? '');
  const served = Date.parse(res.headers.get('Date') ?? '');
  if (!Number.isFinite(stamped) || !Number.isFinite(served)) return arrived;
  return arrived - Math.max(0, served - stamped);
}

/** Feeds waiting for the page to be shown again: a hidden tab asks the API nothing. */
const paused = new Set();

function schedule(feed, delay) {
  setTimeout(() => {
    if (document.hidden) paused.add(feed);
    else poll(feed);
  }, delay * 1000);
}

document.addEventListener('visibilitychange', () => {
  if (document.hidden) return;
  for (const feed of paused) poll(feed);
  paused.clear();
});

/** When a feed's last good figures were read upstream, in this browser's clock (dataTimeOf). */
function dataTime(key) {
  return feeds[key].dataAt;
}

/**
 * The last good payload of a feed: while its refreshes succeed, and after one fails while its data is
 * at most KEEP_MS old (counted from the data's own time, as the API counts); else null.
 */
function current(key) {
  const slot = feeds[key];
  if (!slot.data || !slot.error) return slot.data;
  return Date.now() - dataTime(key) <= KEEP_MS ? slot.data : null;
}

/**
 * Marks a section whose last refresh failed: with its last good figures still shown, their time; with
 * nothing left to show and the API out of reach, that (the section's own badge would guess a cause on
 * the server).
 */
function markFailedRefresh(state, key, what = 'figures') {
  const slot = feeds[key];
  if (slot.error !== 'unavailable') return;
  if (current(key))
    badge(state, 'stale', `Refresh failed: showing ${what} from ${clockSeconds(dataTime(key))}`);
  else if (slot.status === 0) badge(state, 'unavailable', 'Unavailable: the API cannot be reached');
}

/**
 * Feeds whose answer is a last good reading the API served because its live sources fail (a 200, so
 * no refresh failed): mainnet gas `stale:<label>`, the price `stale-*`.
 */
const STALE_LABELS = {
  dashboard: (body) => body.currentGas?.source?.startsWith('stale:'),
  gas: (body) => body.source?.startsWith('stale:'),
  price: (body) => body.source?.startsWith('stale-'),
};

/** Whether a feed's shown figures are a last good reading the API served as such. */
function servedStale(key) {
  const data = current(key);
  return Boolean(data && STALE_LABELS[key]?.(data));
}

/** The time of the oldest last good reading shown (in this browser's clock), or null when none is. */
function staleSince() {
  const times = Object.keys(STALE_LABELS).filter(servedStale).map(dataTime);
  return times.length > 0 ? Math.min(...times) : null;
}

function render() {
  const dashboard = current('dashboard');
  const gas = current('gas');
  const price = current('price');
  const ethUsd = price?.usd ?? dashboard?.ethPrice?.usd ?? null;

  renderDecision($('decision'), $('decision-detail'), dashboard, gas);
  if (feeds.dashboard.error && dashboard) {
    $('decision-detail').textContent +=
      ` Advice from ${clockSeconds(dataTime('dashboard'))}: its refresh failed.`;
  } else if (servedStale('dashboard')) {
    $('decision-detail').textContent +=
      ` Showing last good figures from ${clockSeconds(dataTime('dashboard'))}: the live gas sources are failing.`;
  }
  renderGas($('tiers'), $('gas-facts'), $('gas-state'), gas, ethUsd, dataTime('gas'));
  markFailedRefresh($('gas-state'), 'gas');
  renderL2($('l2-table').tBodies[0], $('l2-state'), current('l2'));
  markFailedRefresh($('l2-state'), 'l2');
  renderPrice($('price'), $('price-state'), price);
  markFailedRefresh($('price-state'), 'price');
  const spark = price?.sparkline_7d ?? [];
  $('spark-caption').textContent = drawSparkline($('spark'), spark);
  renderAccuracy($('accuracy-section'), $('accuracy'), feeds.accuracy.error ? null : current('accuracy'));
  renderHistoryChart(dashboard, gas);
  renderStatus(dashboard);
}

let lastChart = null;

function renderHistoryChart(dashboard, gas) {
  const kept = current('history');
  const history = kept?.points ?? [];
  const predictions = dashboard?.predictions ?? [];
  const currentAverage = gas?.average ?? dashboard?.currentGas?.average ?? null;
  const state = $('history-state');
  const failed = feeds.history.error;
  if (failed && kept) markFailedRefresh(state, 'history', 'the history');
  else if (failed && feeds.history.status === 503)
    badge(state, 'unavailable', 'History unavailable: the history store cannot be reached');
  else if (failed && feeds.history.status === 0)
    badge(state, 'unavailable', 'History unavailable: the API cannot be reached');
  else if (failed) badge(state, 'unavailable', 'History unavailable right now');
  else if (!dashboard) badge(state, 'unavailable', 'Forecast unavailable right now');
  else if (feeds.dashboard.error) markFailedRefresh(state, 'dashboard', 'the forecast');
  else if (kept && history.length === 0) badge(state, 'info', 'No history stored yet');
  else badge(state, null, '');
  lastChart = {
    history,
    predictions,
    current: currentAverage,
    cheapestAt: dashboard?.nextBestWindow?.timestamp ?? null,
    now: Date.now(),
  };
  drawChart($('chart'), lastChart);
  $('chart-summary').textContent = describeChart(lastChart) || 'No data to chart yet.';
  fillForecastTable($('forecast-table').tBodies[0], predictions);
}

function renderStatus(dashboard) {
  const failing = FEEDS.filter((f) => f.key !== 'accuracy' && feeds[f.key].error).length;
  const since = staleSince();
  const from = since === null ? '' : clockSeconds(since);
  const updated = dashboard ? `updated ${clockSeconds(dashboard.lastUpdated)}` : 'waiting for data';
  const every = `refreshes every ${feeds.dashboard.every} s without reloading`;
  let text;
  if (failing > 0 && since !== null)
    text = `Some figures could not be refreshed, and live sources are failing: showing last good figures from ${from}. Retrying shortly.`;
  else if (failing > 0)
    text = `Some figures could not be refreshed; the rest are live (${updated}). Retrying shortly.`;
  // Every answer came (200), but some are last good readings the API kept: not live.
  else if (since !== null)
    text = `Showing last good figures from ${from}: live sources are failing; ${every}.`;
  else text = `Live: ${updated}, ${every}.`;
  $('status').textContent = text;
  $('citation').textContent = dashboard?.citation ?? '';
}

// Redraw the chart at the new width (its text stays legible instead of scaling down).
new ResizeObserver(() => {
  if (lastChart) drawChart($('chart'), lastChart);
}).observe($('chart'));

for (const feed of FEEDS) poll(feed);
