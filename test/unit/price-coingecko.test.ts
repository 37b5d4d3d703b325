import { describe, expect, it } from 'vitest';
import {
  coinGeckoMarketsUrl,
  parseCoinGeckoMarkets,
  SPARKLINE_POINTS,
} from '../../lib/upstream/price-coingecko';
import { MAX_READING_AGE_MS, PriceSourceError } from '../../lib/upstream/price-source';
import { loadPriceFixture } from '../fixtures/price/load-fixture';

const fixture = (name: string) => loadPriceFixture<unknown[]>(name);
const eth = fixture('coingecko-markets-eth.json');
const pol = fixture('coingecko-markets-pol.json');
const ETH_READ_AT = Date.parse('2022-08-22T17:19:30Z');
const POL_READ_AT = Date.parse('2025-11-20T12:00:30Z');

/** A copy of the first market entry with some fields replaced. */
function withEntry(body: unknown[], patch: Record<string, unknown>): unknown[] {
  return [{ ...(body[0] as object), ...patch }];
}

describe('CoinGecko /coins/markets parser', () => {
  it('asks for the token with its 24 h change and the 7-day sparkline', () => {
    const url = new URL(coinGeckoMarketsUrl('https://api.coingecko.com/api/v3', 'POL'));
    expect(url.pathname).toBe('/api/v3/coins/markets');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      vs_currency: 'usd',
      ids: 'polygon-ecosystem-token',
      sparkline: 'true',
      price_change_percentage: '24h',
    });
  });

  it('reads price, 24 h change and 168 sparkline values from the documented shape', () => {
    const reading = parseCoinGeckoMarkets(eth.body, 'ETH', ETH_READ_AT);
    expect(reading.usd).toBe(1580);
    expect(reading.change24h).toBeCloseTo(-1.78843, 5);
    expect(reading.sparkline7d).toHaveLength(SPARKLINE_POINTS);
    expect(reading.sparkline7d?.at(-1)).toBe(1580);
  });

  it('keeps the last 168 of a longer sparkline and gives null when the change is null', () => {
    const reading = parseCoinGeckoMarkets(pol.body, 'POL', POL_READ_AT);
    expect(reading.usd).toBe(0.4123);
    expect(reading.change24h).toBeNull();
    const sent = (pol.body[0] as { sparkline_in_7d: { price: number[] } }).sparkline_in_7d.price;
    expect(sent).toHaveLength(169);
    expect(reading.sparkline7d).toEqual(sent.slice(1));
  });

  it('falls back to the _in_currency change when the plain one is missing', () => {
    const body = withEntry(eth.body, { price_change_percentage_24h: undefined });
    expect(parseCoinGeckoMarkets(body, 'ETH', ETH_READ_AT).change24h).toBeCloseTo(-1.78843, 5);
  });

  it.each([
    ['zero', 0],
    ['negative', -1580],
    ['absurd', 1e9],
    ['a string', 'n/a'],
    ['null', null],
  ])('rejects a %s price', (_, price) => {
    expect(() =>
      parseCoinGeckoMarkets(withEntry(eth.body, { current_price: price }), 'ETH', ETH_READ_AT),
    ).toThrow(PriceSourceError);
  });

  it('dates the quote by last_updated, or by the clock when that is ahead of it (within the skew allowed)', () => {
    const at = (lastUpdated: number) =>
      parseCoinGeckoMarkets(
        withEntry(eth.body, { last_updated: new Date(lastUpdated).toISOString() }),
        'ETH',
        ETH_READ_AT,
      ).quotedAt;
    expect(at(ETH_READ_AT - 170_000)).toBe(ETH_READ_AT - 170_000);
    expect(at(ETH_READ_AT + 60_000)).toBe(ETH_READ_AT);
  });

  it('serves a quote up to 3 minutes old as live, no older', () => {
    expect(MAX_READING_AGE_MS).toBe(3 * 60_000);
    const aged = (ms: number) =>
      withEntry(eth.body, { last_updated: new Date(ETH_READ_AT - ms).toISOString() });
    expect(parseCoinGeckoMarkets(aged(MAX_READING_AGE_MS), 'ETH', ETH_READ_AT).usd).toBe(1580);
    expect(() => parseCoinGeckoMarkets(aged(MAX_READING_AGE_MS + 1000), 'ETH', ETH_READ_AT)).toThrow(
      'reading is 181 s old',
    );
  });

  it('rejects a reading whose last_updated is older than the limit', () => {
    const old = new Date(ETH_READ_AT - MAX_READING_AGE_MS - 1000).toISOString();
    expect(() =>
      parseCoinGeckoMarkets(withEntry(eth.body, { last_updated: old }), 'ETH', ETH_READ_AT),
    ).toThrow(/old/);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['not a time', 'garbage'],
    ['a year ahead', new Date(ETH_READ_AT + 365 * 86_400_000).toISOString()],
  ])('rejects a reading whose last_updated is %s, since its age cannot be told', (_, lastUpdated) => {
    expect(() =>
      parseCoinGeckoMarkets(withEntry(eth.body, { last_updated: lastUpdated }), 'ETH', ETH_READ_AT),
    ).toThrow(/last_updated/);
  });

  it('rejects an empty list, another coin and a non-array body', () => {
    expect(() => parseCoinGeckoMarkets([], 'ETH', ETH_READ_AT)).toThrow(PriceSourceError);
    expect(() => parseCoinGeckoMarkets(withEntry(eth.body, { id: 'bitcoin' }), 'ETH', ETH_READ_AT)).toThrow(
      PriceSourceError,
    );
    expect(() => parseCoinGeckoMarkets({ status: { error_code: 429 } }, 'ETH', ETH_READ_AT)).toThrow(
      PriceSourceError,
    );
  });

  it('keeps the price but drops a change that is not a finite percentage', () => {
    const reading = parseCoinGeckoMarkets(
      withEntry(eth.body, { price_change_percentage_24h: -250 }),
      'ETH',
      ETH_READ_AT,
    );
    expect(reading.usd).toBe(1580);
    expect(reading.change24h).toBeCloseTo(-1.78843, 5); // the _in_currency value still stands
    const none = parseCoinGeckoMarkets(
      withEntry(eth.body, {
        price_change_percentage_24h: 'NaN',
        price_change_percentage_24h_in_currency: null,
      }),
      'ETH',
      ETH_READ_AT,
    );
    expect(none.change24h).toBeNull();
  });

  it('drops a sparkline holding a non-price but keeps the reading', () => {
    const broken = [...Array(167).fill(1500), null];
    const reading = parseCoinGeckoMarkets(
      withEntry(eth.body, { sparkline_in_7d: { price: broken } }),
      'ETH',
      ETH_READ_AT,
    );
    expect(reading.usd).toBe(1580);
    expect(reading.sparkline7d).toBeNull();
  });
});
