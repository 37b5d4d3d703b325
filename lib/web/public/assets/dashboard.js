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

/** Per feed: `data` (last good body), `error` (null, 'unavailable' or 'absent'), `at` (ms of last success). */
const feeds = Object.fromEntries(
  FEEDS.map((f) => [f.key, { data: null, error: null, at: 0, every: f.every }]),
);
const $ = (id) => document.getElementById(id);

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
      delay = cadence(res, feed.every);
    } else {
      slot.error = res.status === 404 ? 'absent' : 'unavailable';
      if (res.status === 404) slot.data = null;
      const retry = Number(res.headers.get('Retry-After'));
      delay = Number.isFinite(retry) && retry > 0 ? Math.min(retry, feed.every) : Math.min(30, feed.every);
    }
  } catch {
    slot.error = 'unavailable';
    delay = Math.min(30, feed.every);
  }
  slot.every = delay;
  render();
  setTimeout(() => poll(feed), delay * 1000);
}

/** The last good payload of a feed, or null when it failed this time and has nothing to fall back on. */
function current(key, { keepOnError = true } = {}) {
  const slot = feeds[key];
  return slot.error && !keepOnError ? null : slot.data;
}

function render() {
  const dashboard = current('dashboard');
  const gas = feeds.gas.error ? null : feeds.gas.data;
  const price = current('price');
  const ethUsd = price?.usd ?? dashboard?.ethPrice?.usd ?? null;

  renderDecision($('decision'), $('decision-detail'), feeds.dashboard.error ? null : dashboard, gas);
  renderGas($('tiers'), $('gas-facts'), $('gas-state'), gas, ethUsd, Date.now());
  renderL2($('l2-table').tBodies[0], $('l2-state'), current('l2'));
  renderPrice($('price'), $('price-state'), feeds.price.error ? null : price);
  const spark = price?.sparkline_7d ?? [];
  $('spark-caption').textContent = drawSparkline($('spark'), spark);
  renderAccuracy($('accuracy-section'), $('accuracy'), feeds.accuracy.error ? null : current('accuracy'));
  renderHistoryChart(dashboard, gas);
  renderStatus(dashboard);
}

let lastChart = null;

function renderHistoryChart(dashboard, gas) {
  const history = feeds.history.error ? [] : (feeds.history.data?.points ?? []);
  const predictions = dashboard?.predictions ?? [];
  const currentAverage = gas?.average ?? dashboard?.currentGas?.average ?? null;
  const state = $('history-state');
  if (feeds.history.error)
    badge(state, 'unavailable', 'History unavailable: the history store cannot be reached');
  else if (feeds.history.data && history.length === 0) badge(state, 'info', 'No history stored yet');
  else if (!dashboard) badge(state, 'unavailable', 'Forecast unavailable right now');
  else badge(state, null, '');
  lastChart = { history, predictions, current: currentAverage, now: Date.now() };
  drawChart($('chart'), lastChart);
  $('chart-summary').textContent = describeChart(lastChart) || 'No data to chart yet.';
  fillForecastTable($('forecast-table').tBodies[0], predictions);
}

function renderStatus(dashboard) {
  const failing = FEEDS.filter((f) => f.key !== 'accuracy' && feeds[f.key].error).length;
  const updated = dashboard ? `updated ${clockSeconds(dashboard.lastUpdated)}` : 'waiting for data';
  $('status').textContent =
    failing > 0
      ? `Some figures could not be refreshed; the rest are live (${updated}). Retrying shortly.`
      : `Live: ${updated}, refreshes every ${feeds.dashboard.every} s without reloading.`;
  $('citation').textContent = dashboard?.citation ?? '';
}

// Redraw the chart at the new width (its text stays legible instead of scaling down).
new ResizeObserver(() => {
  if (lastChart) drawChart($('chart'), lastChart);
}).observe($('chart'));

for (const feed of FEEDS) poll(feed);
