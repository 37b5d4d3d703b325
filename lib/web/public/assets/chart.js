// The chart (last 24 h of history, next 24 h of forecast, uncertainty band, low-fee windows) and the
// ETH price sparkline, as hand-written SVG sized to their container so text stays legible on a phone.
import { clock, clockDay, gwei, gweiEstimate, h, s, usd, weekdayUnlessToday } from './dom.js';

const HOUR = 3_600_000;
/** Tolerance behind a prediction's `confidence`: the chance the outcome lands within this factor. */
const CONFIDENCE_FACTOR = 1.25;
/** The band drawn: the central 80 % of outcomes (z of the 90th percentile). */
const BAND_Z = 1.2816;

/** Inverse of the standard normal CDF for p in (0.5, 1) (Abramowitz and Stegun 26.2.23, error < 5e-4). */
function normalQuantile(p) {
  const t = Math.sqrt(-2 * Math.log(1 - p));
  return (
    t -
    (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3)
  );
}

/**
 * The 80 % range of one prediction. Its `confidence` c is the share of past errors within a factor 1.25;
 * read as a log-normal spread, sigma = ln 1.25 / z((1 + c) / 2) and the band is avg x/÷ e^(1.28 sigma).
 */
export function bandOf(prediction) {
  const c = Math.min(Math.max(prediction.confidence, 0.01), 0.998);
  const sigma = Math.log(CONFIDENCE_FACTOR) / normalQuantile((1 + c) / 2);
  const spread = Math.exp(BAND_Z * sigma);
  return { low: prediction.average / spread, high: prediction.average * spread };
}

/** Round axis steps: 1, 2 or 5 times a power of ten. */
function niceStep(max, ticks) {
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? raw;
}

/** Beyond this ratio of highest to lowest line value the axis is logarithmic (a spike over calm fees). */
export const LOG_SCALE_RATIO = 8;

/**
 * The round values (1, 2 or 5 times a power of ten) from `lo` to `hi`; when crowded, the powers of
 * ten only, and always both ends, so the lowest and highest lines are labelled.
 */
function logTicks(lo, hi) {
  const all = [];
  for (let power = Math.floor(Math.log10(lo)); 10 ** power <= hi; power++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** power;
      if (v >= lo * 0.999 && v <= hi * 1.001) all.push(Number(v.toPrecision(1)));
    }
  }
  if (all.length <= 6) return all;
  const isPowerOfTen = (v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
  return all.filter((v, i) => i === 0 || i === all.length - 1 || isPowerOfTen(v));
}

/** Every value the chart's lines pass through: history, forecast and the live reading (0 without one). */
function lineValuesOf({ history, predictions, current }) {
  return [...history.map((p) => p.gasPrice), ...predictions.map((p) => p.average), current ?? 0];
}

/**
 * The vertical scale: linear from 0 to a round top, or, when the lines span more than LOG_SCALE_RATIO
 * (a 50x spike over sub-gwei fees would press everything else flat onto the zero line), logarithmic
 * between round values around them. `bandMax` / `bandMin`: the 80 % band's extremes. Returns whether
 * it is logarithmic, the map from gwei to a 0..1 height, the ticks and their labels.
 */
export function chooseVerticalScale(lineValues, bandMax, bandMin = Number.POSITIVE_INFINITY) {
  const positive = lineValues.filter((v) => v > 0);
  const lineMax = Math.max(0, ...positive);
  const lineMin = positive.length > 0 ? Math.min(...positive) : 0;
  // The band may be far wider than the lines; the axis follows the lines and clips the band.
  const top = Math.max(lineMax * 1.15, Math.min(bandMax, lineMax * 1.6)) || 1;
  if (lineMin > 0 && lineMax / lineMin > LOG_SCALE_RATIO) {
    // The same room below the lines as above: a log axis ends where the values do, not at 0, and one
    // just under the lines laid the band's lower edge flat along it (at sub-gwei fees the band reaches
    // half the forecast), as if fees had a floor there.
    const bottom = Math.min(lineMin / 1.15, Math.max(bandMin, lineMin / 1.6));
    const roundDown = (v) => {
      const power = 10 ** Math.floor(Math.log10(v));
      return [5, 2, 1].map((m) => m * power).find((r) => r <= v) ?? power;
    };
    const roundUp = (v) => {
      const power = 10 ** Math.floor(Math.log10(v));
      return [1, 2, 5, 10].map((m) => m * power).find((r) => r >= v) ?? v;
    };
    const lo = roundDown(bottom);
    const hi = roundUp(top);
    const span = Math.log(hi) - Math.log(lo);
    return {
      log: true,
      at: (v) => (Math.log(Math.max(v, lo)) - Math.log(lo)) / span,
      ticks: logTicks(lo, hi),
      // Round values (0.05, 0.1, 0.2): each as it is.
      label: gwei,
    };
  }
  const step = niceStep(top, 4);
  const yMax = Math.ceil(top / step) * step;
  const ticks = [];
  for (let i = 0; i * step <= yMax + step / 2; i++) ticks.push(i * step);
  // Evenly spaced values, all to the step's decimals (0.00, 0.05, 0.10, 0.15): a column of figures that
  // line up, where 0, 0.05, 0.1, 0.15 did not.
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const label = (v) =>
    v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return { log: false, at: (v) => v / yMax, ticks, label };
}

/**
 * Draws the chart into `box`. `history` is `{timestamp, gasPrice}[]`, `predictions` the forecast points,
 * `current` the live average tier (or null), `now` epoch ms. Returns the SVG.
 */
export function drawChart(box, { history, predictions, current, now }) {
  const width = Math.max(280, Math.round(box.clientWidth || 640));
  const height = width < 500 ? 220 : 280;
  const pad = { left: 44, right: 10, top: 12, bottom: 26 };
  const x0 = now - 24 * HOUR;
  const x1 = now + 24 * HOUR;
  const bands = predictions.map(bandOf);
  const scale = chooseVerticalScale(
    lineValuesOf({ history, predictions, current }),
    Math.max(0, ...bands.map((b) => b.high)),
    Math.min(...bands.map((b) => b.low)),
  );
  const x = (t) => pad.left + ((t - x0) / (x1 - x0)) * (width - pad.left - pad.right);
  const y = (v) => pad.top + (1 - scale.at(v)) * (height - pad.top - pad.bottom);
  const at = (t, v) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`;

  const grid = [];
  for (const v of scale.ticks) {
    grid.push(s('line', { class: 'grid', x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v) }));
    grid.push(
      s('text', { class: 'axis', x: pad.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, scale.label(v)),
    );
  }
  // Hour labels every 6 h, or every 12 h where six of them would not fit side by side.
  const tick = (width < 640 ? 12 : 6) * HOUR;
  const offset = new Date(now).getTimezoneOffset() * 60_000;
  for (let t = Math.ceil((x0 - offset) / tick) * tick + offset; t <= x1; t += tick) {
    if (t < x0) continue;
    grid.push(s('text', { class: 'axis tick', x: x(t), y: height - 8, 'text-anchor': 'middle' }, clock(t)));
  }

  const windows = predictions
    .filter((p) => p.isLowFeeWindow)
    .map((p) => {
      const t = Date.parse(p.timestamp);
      return s('rect', {
        class: 'window',
        x: x(t),
        y: pad.top,
        width: Math.max(1, x(Math.min(t + HOUR, x1)) - x(t)),
        height: height - pad.top - pad.bottom,
      });
    });
  const series = (points) => points.map(([t, v]) => at(t, v)).join(' ');
  const forecastPoints = predictions.map((p) => [Date.parse(p.timestamp), p.average]);
  const bandPath =
    predictions.length > 1
      ? `M${series(predictions.map((p, i) => [Date.parse(p.timestamp), bands[i].high]))} L${series(
          predictions.map((p, i) => [Date.parse(p.timestamp), bands[i].low]).reverse(),
        )} Z`
      : undefined;

  const svg = s(
    'svg',
    {
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      role: 'img',
      'aria-labelledby': 'chart-summary',
      'data-scale': scale.log ? 'log' : 'linear',
    },
    s(
      'defs',
      {},
      s(
        'clipPath',
        { id: 'plot' },
        s('rect', { x: pad.left, y: pad.top, width, height: height - pad.top - pad.bottom }),
      ),
    ),
    windows,
    grid,
    bandPath && s('path', { class: 'band', d: bandPath, 'clip-path': 'url(#plot)' }),
    s('line', { class: 'now', x1: x(now), x2: x(now), y1: pad.top, y2: height - pad.bottom }),
    s('text', { class: 'axis', x: x(now) + 4, y: pad.top + 10 }, 'now'),
    history.length > 0 &&
      s('polyline', {
        class: 'history',
        'data-count': history.length,
        points: series(history.map((p) => [Date.parse(p.timestamp), p.gasPrice])),
      }),
    forecastPoints.length > 0 &&
      s('polyline', {
        class: 'forecast',
        'data-count': forecastPoints.length,
        points: series(forecastPoints),
      }),
    current !== null &&
      s('circle', { class: 'now-dot', cx: x(now), cy: y(current), r: 4, fill: 'var(--history)' }),
  );
  box.replaceChildren(svg);
  return svg;
}

/**
 * One sentence describing what the chart shows, for screen readers and as its caption. `cheapestAt` is
 * the API's `nextBestWindow` time: on a tie in served prices it names the hour the decision box names.
 */
export function describeChart({ history, predictions, current, cheapestAt = null }) {
  const parts = [];
  if (history.length > 0) {
    const values = history.map((p) => p.gasPrice);
    parts.push(
      `Over the last 24 h the average tier ran from ${gwei(Math.min(...values))} to ${gwei(Math.max(...values))} gwei.`,
    );
  }
  if (current !== null) parts.push(`Now: ${gwei(current)} gwei.`);
  if (chooseVerticalScale(lineValuesOf({ history, predictions, current }), 0).log)
    parts.push(`The scale is logarithmic: fees span more than ${LOG_SCALE_RATIO}x.`);
  if (predictions.length > 0) {
    const cheapest =
      predictions.find((p) => p.timestamp === cheapestAt) ??
      predictions.reduce((a, b) => (b.average < a.average ? b : a));
    const values = predictions.map((p) => p.average);
    const windows = predictions.filter((p) => p.isLowFeeWindow).length;
    parts.push(
      `The forecast for the next ${predictions.length} h ranges from ${gweiEstimate(Math.min(...values))} to ` +
        `${gweiEstimate(Math.max(...values))} gwei, cheapest around ${clockDay(cheapest.timestamp)} ` +
        `(${gweiEstimate(cheapest.average)} gwei); ${windows} ${windows === 1 ? 'hour is a' : 'hours are'} predicted low-fee ${windows === 1 ? 'window' : 'windows'}.`,
    );
  }
  return parts.join(' ');
}

/**
 * Fills the forecast table (the chart's data as text). The likely range is an approximation (see
 * bandOf): three digits say all it knows, and it stays on one line ("0.0583 – 0.0989"; at sub-gwei fees
 * its four-digit ends wrapped over three lines of a phone's table, the dash alone on the middle one).
 * On a phone an hour may break between its weekday and its time, never inside either.
 */
export function fillForecastTable(tbody, predictions) {
  tbody.replaceChildren(
    ...predictions.map((p) => {
      const band = bandOf(p);
      const day = weekdayUnlessToday(p.timestamp);
      return h(
        'tr',
        {},
        h('td', {}, day && h('span', {}, day), day && ' ', h('span', {}, clock(p.timestamp))),
        h('td', {}, gweiEstimate(p.average)),
        h('td', { class: 'range' }, `${gweiEstimate(band.low, 3)} – ${gweiEstimate(band.high, 3)}`),
        h('td', {}, p.isLowFeeWindow ? 'yes' : ''),
      );
    }),
  );
}

/** Draws the 7-day price sparkline and returns its caption text. */
export function drawSparkline(box, values) {
  if (values.length < 2) {
    box.replaceChildren();
    return 'No 7-day price history available.';
  }
  const width = 300;
  const height = 48;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min || 1;
  const points = values
    .map(
      (v, i) =>
        `${((i / (values.length - 1)) * width).toFixed(1)},${(2 + (1 - (v - min) / span) * (height - 4)).toFixed(1)}`,
    )
    .join(' ');
  const text = `Last 7 days: from ${usd(values[0])} to ${usd(values[values.length - 1])}, low ${usd(min)}, high ${usd(max)}.`;
  box.replaceChildren(
    s(
      'svg',
      { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': text },
      s('polyline', {
        class: 'spark-line',
        'data-count': values.length,
        points,
        'vector-effect': 'non-scaling-stroke',
      }),
    ),
  );
  return text;
}
