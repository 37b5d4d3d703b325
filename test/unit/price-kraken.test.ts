import { describe, expect, it } from 'vitest';
import {
  krakenOhlcUrl,
  krakenTickerUrl,
  parseKrakenPrice24hAgo,
  parseKrakenTicker,
} from '../../lib/upstream/price-kraken';
import { computeChange, PriceSourceError } from '../../lib/upstream/price-source';
import { loadPriceFixture } from '../fixtures/price/load-fixture';

const fixture = (name: string) =>
  loadPriceFixture<{ error: string[]; result: Record<string, unknown> }>(name);
const ohlc = fixture('kraken-ohlc-eth.json');
const NOW_MS = ohlc._source.nowMs ?? 0;

describe('Kraken Ticker parser', () => {
  it('asks for the pair by its plain name', () => {
    expect(krakenTickerUrl('https://api.kraken.com', 'ETH')).toBe(
      'https://api.kraken.com/0/public/Ticker?pair=ETHUSD',
    );
    expect(krakenTickerUrl('https://api.kraken.com', 'POL')).toBe(
      'https://api.kraken.com/0/public/Ticker?pair=POLUSD',
    );
  });

  it('reads the last trade price under the legacy key XETHZUSD', () => {
    expect(parseKrakenTicker(fixture('kraken-ticker-eth.json').body, 'ETH')).toBe(1580.49);
  });

  it('reads POLUSD, whose result key is the pair itself', () => {
    expect(parseKrakenTicker(fixture('kraken-ticker-pol.json').body, 'POL')).toBe(0.412);
  });

  it("never reads another market's answer as the token's price", () => {
    expect(() => parseKrakenTicker(fixture('kraken-ticker-eth.json').body, 'POL')).toThrow(/no POL pair/);
  });

  it('rejects the documented error answer (HTTP 200 with an error list)', () => {
    expect(() => parseKrakenTicker(fixture('kraken-error.json').body, 'ETH')).toThrow(
      /EQuery:Unknown asset pair/,
    );
  });

  it('reads the price beside a warning (a W message), and rejects an error beside one', () => {
    const { body } = fixture('kraken-ticker-eth.json');
    const warned = { ...body, error: ['WGeneral:Deprecated endpoint'] };
    expect(parseKrakenTicker(warned, 'ETH')).toBe(1580.49);
    const failed = { ...body, error: ['WGeneral:Deprecated endpoint', 'EService:Busy'] };
    expect(() => parseKrakenTicker(failed, 'ETH')).toThrow(/Kraken error EService:Busy/);
  });

  it("shows at most 100 characters of Kraken's error text, on one line", () => {
    const long = `EGeneral:Internal error\n2026-11-27T00:00:00.000Z info GET /api/gas 200 0ms${'x'.repeat(500)}`;
    try {
      parseKrakenTicker({ error: [long] }, 'ETH');
      expect.unreachable();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toMatch(/^Kraken error EGeneral:Internal error\\n2026/);
      expect(message).not.toContain('\n');
      expect(message.length).toBeLessThan(130);
    }
  });

  it('rejects absurd and missing prices', () => {
    const body = fixture('kraken-ticker-eth.json').body;
    const entry = body.result.XETHZUSD as Record<string, unknown>;
    for (const c of [['0.00000', '1'], ['1000000000.0', '1'], [], ['x']]) {
      expect(() => parseKrakenTicker({ error: [], result: { XETHZUSD: { ...entry, c } } }, 'ETH')).toThrow(
        PriceSourceError,
      );
    }
    expect(() => parseKrakenTicker({ error: [], result: {} }, 'ETH')).toThrow(PriceSourceError);
  });
});

describe('Kraken OHLC (price 24 hours ago)', () => {
  it('asks for 5-minute candles starting a little over 24 hours back', () => {
    const url = new URL(krakenOhlcUrl('https://api.kraken.com', 'ETH', NOW_MS));
    expect(url.searchParams.get('pair')).toBe('ETHUSD');
    expect(url.searchParams.get('interval')).toBe('5');
    const since = Number(url.searchParams.get('since'));
    expect(NOW_MS / 1000 - since).toBeGreaterThan(86_400);
    expect(NOW_MS / 1000 - since).toBeLessThan(86_400 + 900);
  });

  it('takes the open of the candle holding the instant 24 hours ago', () => {
    const candles = ohlc.body.result.XETHZUSD as Array<[number, string]>;
    const target = NOW_MS / 1000 - 86_400;
    const holding = candles.find(([time]) => time <= target && target < time + 300);
    expect(holding).toBeDefined();
    expect(parseKrakenPrice24hAgo(ohlc.body, 'ETH', NOW_MS)).toBe(Number(holding?.[1]));
  });

  it('gives null, not a guess, when no candle covers that instant or the body is an error', () => {
    expect(parseKrakenPrice24hAgo(ohlc.body, 'ETH', NOW_MS + 3 * 86_400_000)).toBeNull();
    expect(parseKrakenPrice24hAgo(fixture('kraken-error.json').body, 'ETH', NOW_MS)).toBeNull();
    expect(parseKrakenPrice24hAgo('garbage', 'ETH', NOW_MS)).toBeNull();
  });

  it('computes the change in percent from the two prices', () => {
    expect(computeChange(1600, 1580)).toBeCloseTo(-1.25, 10);
    expect(computeChange(0, 1580)).toBeNull();
  });
});
