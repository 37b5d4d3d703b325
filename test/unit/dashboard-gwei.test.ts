// The dashboard's gwei formatters (lib/web/public/assets/dom.js, a browser module whose gwei() touches no
// DOM): four significant digits, never fewer once a figure was rounded, so sub-gwei figures side by
// side read to the same precision.
import { describe, expect, it } from 'vitest';

const { gwei, gweiEstimate } = (await import(
  new URL('../../lib/web/public/assets/dom.js', import.meta.url).href
)) as {
  gwei: (value: number | null | undefined) => string;
  gweiEstimate: (value: number, digits?: number) => string;
};

describe('dashboard gwei()', () => {
  it.each([
    [0.068802982, '0.06880'],
    [0.021595624, '0.02160'],
    [0.105003, '0.1050'],
    [0.050207358, '0.05021'],
    [0.00015873, '0.0001587'],
    [35.170000001, '35.17'],
    [52.6001, '52.60'],
    [1234.56, '1,235'],
  ])('keeps all four digits of a rounded figure, a trailing zero too: %f is %s', (value, text) => {
    expect(gwei(value)).toBe(text);
  });

  it.each([
    [0.003, '0.003'],
    [0.001, '0.001'],
    [66.5, '66.5'],
    [30, '30'],
    [0.000000012, '0.000000012'],
    [0, '0'],
  ])('shows a figure exact in fewer digits as it is: %f is %s', (value, text) => {
    expect(gwei(value)).toBe(text);
  });

  it.each([[null], [undefined], [Number.NaN]])('shows %s as a dash', (value) => {
    expect(gwei(value)).toBe('—');
  });
});

describe('dashboard gweiEstimate()', () => {
  it.each([
    [0.155, 4, '0.1550'],
    [0.0968, 4, '0.09680'],
    [0.1119, 4, '0.1119'],
    [0.05834, 3, '0.0583'],
    [0.0989, 3, '0.0989'],
    [0.1, 3, '0.100'],
    [41.27, 3, '41.3'],
  ])('shows a forecast %f to its %i digits: %s', (value, digits, text) => {
    expect(gweiEstimate(value, digits)).toBe(text);
  });
});
