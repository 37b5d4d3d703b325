// DOM building and number formatting for the dashboard. Text always goes in through textContent: no
// API string is ever parsed as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Creates an HTML element with attributes and children (strings become text nodes). */
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** Creates an SVG element with attributes and children. */
export function s(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

function build(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null && value !== false) el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return el;
}

/** A `<data>` element: the exact machine value in `value`, the formatted one as text. */
export function num(value, text) {
  return h('data', { value }, text);
}

/**
 * Gwei to 4 significant digits, never losing sub-gwei precision (0.05335, 0.00125). A figure that had
 * to be rounded shows all four, a trailing zero included: 0.06880 beside 0.05021 and 0.1014, where
 * "0.0688" read as a figure known to fewer digits. One that is exact in fewer digits shows as it is
 * (66.5, a round tip of 0.003).
 */
export function gwei(value) {
  return formatGwei(value, 4, false);
}

/**
 * A forecast in gwei to `digits` significant digits, always all of them: the API rounds its forecasts
 * already and none is exact, so 0.1550 sits in a column of 0.1119 and 0.09680 as their equal.
 */
export function gweiEstimate(value, digits = 4) {
  return formatGwei(value, digits, true);
}

function formatGwei(value, digits, estimate) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const exact = !estimate && Number(value.toPrecision(digits)) === value;
  return value.toLocaleString('en-US', {
    maximumSignificantDigits: digits,
    minimumSignificantDigits: exact ? 1 : digits,
  });
}

/**
 * US dollars: cents from $1 up, two significant digits below, a trailing zero kept ("$0.50",
 * "$0.00020"; a Layer 2 transfer costs fractions of a cent). An amount that rounds to $1 is in cents.
 */
export function usd(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (Math.abs(Number(value.toPrecision(2))) >= 1) {
    return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  }
  if (value === 0) return '$0';
  return `$${value.toLocaleString('en-US', { minimumSignificantDigits: 2, maximumSignificantDigits: 2 })}`;
}

/** A percentage with at most one decimal. */
export function pct(value, digits = 1) {
  return `${Number(value.toFixed(digits)).toLocaleString('en-US')} %`;
}

/** Local clock time, hours and minutes. */
export function clock(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** Local clock time, with the weekday when it is not today ("Sat 07:00 AM"): an hour ahead may be tomorrow's. */
export function clockDay(iso) {
  const day = weekdayUnlessToday(iso);
  return day ? `${day} ${clock(iso)}` : clock(iso);
}

/** The short local weekday ("Sat") of a time that is not today, else an empty string. */
export function weekdayUnlessToday(iso) {
  const date = new Date(iso);
  if (date.toDateString() === new Date().toDateString()) return '';
  return date.toLocaleDateString([], { weekday: 'short' });
}

/** Local clock time with seconds. */
export function clockSeconds(iso) {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** How long ago, in plain words ("40 s", "3 min", "2 h"). */
export function age(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/** Shows a state badge (`stale`, `unavailable`, `info`) or hides it when `text` is empty. */
export function badge(el, kind, text) {
  el.hidden = !text;
  el.textContent = text ?? '';
  if (kind) el.dataset.kind = kind;
}
