import { describe, expect, it } from 'vitest';
import { coinbaseSpotUrl, parseCoinbaseSpot } from '../../lib/upstream/price-coinbase';
import { PriceSourceError } from '../../lib/upstream/price-source';
import { loadPriceFixture } from '../fixtures/price/load-fixture';

const fixture = (name: string) => loadPriceFixture<{ data: Record<string, unknown> }>(name);

describe('Coinbase spot-price parser', () => {
  it('asks for the token pair', () => {
    expect(coinbaseSpotUrl('https://api.coinbase.com', 'ETH')).toBe(
      'https://api.coinbase.com/v2/prices/ETH-USD/spot',
    );
    expect(coinbaseSpotUrl('https://api.coinbase.com', 'POL')).toBe(
      'https://api.coinbase.com/v2/prices/POL-USD/spot',
    );
  });

  it('reads the decimal-string amount; the spot API gives no 24 h change, so it is null', () => {
    expect(parseCoinbaseSpot(fixture('coinbase-spot-eth.json').body, 'ETH')).toEqual({
      usd: 1579.62,
      change24h: null,
      sparkline7d: null,
    });
    expect(parseCoinbaseSpot(fixture('coinbase-spot-pol.json').body, 'POL').usd).toBe(0.41187);
  });

  it('rejects the documented error body', () => {
    expect(() => parseCoinbaseSpot(fixture('coinbase-error.json').body, 'ETH')).toThrow(PriceSourceError);
  });

  it('rejects an answer for another pair', () => {
    expect(() => parseCoinbaseSpot(fixture('coinbase-spot-pol.json').body, 'ETH')).toThrow(/another pair/);
  });

  it.each(['0', '-3', '1e9', 'abc', '', '12.5.3'])('rejects the amount %j', (amount) => {
    const body = fixture('coinbase-spot-eth.json').body;
    expect(() => parseCoinbaseSpot({ data: { ...body.data, amount } }, 'ETH')).toThrow(PriceSourceError);
  });
});
