// The dashboard's dollar formatter (lib/web/public/assets/dom.js, a browser module whose usd() touches
// no DOM): cents from $1 up, and below $1 two significant digits, a trailing zero kept.
import { describe, expect, it } from 'vitest';

const { usd } = (await import(new URL('../../lib/web/public/assets/dom.js', import.meta.url).href)) as {
  usd: (value: number | null | undefined) => string;
};

describe('dashboard usd()', () => {
  it.each([
    [0.5, '$0.50'],
    [0.00997, '$0.010'],
    [0.0002023, '$0.00020'],
    [0.0001, '$0.00010'],
    [0.00063, '$0.00063'],
    [0.0016, '$0.0016'],
    [0.48, '$0.48'],
    [0.0000000123, '$0.000000012'],
  ])('keeps two significant digits under a dollar: %f is %s', (value, text) => {
    expect(usd(value)).toBe(text);
  });

  it.each([
    [1, '$1.00'],
    [3012.45, '$3,012.45'],
    // Rounded to two significant digits it is a dollar: shown in cents like every other dollar.
    [0.996, '$1.00'],
  ])('shows cents from a dollar up: %f is %s', (value, text) => {
    expect(usd(value)).toBe(text);
  });

  it.each([
    [0, '$0'],
    [null, '—'],
    [Number.NaN, '—'],
  ])('says %s plainly', (value, text) => {
    expect(usd(value)).toBe(text);
  });
});
