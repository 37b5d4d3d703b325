import { loadDailyEthUsd } from './shared-data';
import type { Sim } from './sim';
import type { SimServer } from './sim-server';

export type Asset = 'ETH' | 'POL';

/** One asset's quote as a price source would report it. */
export interface Quote {
  usd: number;
  /** Percent change over 24 hours. */
  change24h: number;
  /** 168 hourly prices, oldest first, ending at `usd`. */
  sparkline: number[];
  /** Time of the reading, epoch milliseconds. */
  updatedAt: number;
}

/** What a test may set on a quote; `usd` alone rescales the sparkline and keeps the shape. */
export type QuoteOverride = Partial<Quote>;

let shape: number[] | undefined;

/**
 * The 7-day hourly shape: real daily ETH/USD closes of 2022-09-01..08 (a calm pre-Merge week in the
 * Etherscan export), interpolated hourly with a small deterministic intraday swing (±0.3 %), as ratios
 * to the last value. Scaled to any price it gives a plausible `sparkline_in_7d`.
 */
function hourlyShape(): number[] {
  if (!shape) {
    const daily = loadDailyEthUsd('9/1/2022', 8);
    const raw = Array.from({ length: 168 }, (_, i) => {
      const day = (i * (daily.length - 1)) / 167;
      const low = Math.floor(day);
      const from = daily[low]!;
      const to = daily[Math.min(low + 1, daily.length - 1)]!;
      return (from + (to - from) * (day - low)) * (1 + 0.003 * Math.sin((2 * Math.PI * i) / 24));
    });
    const last = raw[167]!;
    shape = raw.map((value) => value / last);
  }
  return shape;
}

function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A sparkline of 168 hourly values ending exactly at `usd`. */
export function buildSparkline(usd: number): number[] {
  const digits = usd >= 1 ? 4 : 8;
  return hourlyShape().map((ratio, i) => (i === 167 ? usd : roundTo(ratio * usd, digits)));
}

/** Percent change between the value 24 hours back in a sparkline and its last value. */
export function computeChange24h(sparkline: readonly number[]): number {
  const last = sparkline[sparkline.length - 1] ?? 0;
  const dayAgo = sparkline[sparkline.length - 25] ?? last;
  return dayAgo === 0 ? 0 : roundTo(((last - dayAgo) / dayAgo) * 100, 5);
}

/** The quotes one price source serves: defaults per asset, overridable per test. */
export class PriceBook {
  private overrides = new Map<Asset, QuoteOverride>();

  constructor(
    private readonly defaults: Record<Asset, number>,
    private readonly now: () => number,
  ) {}

  /** Sets (part of) an asset's quote; undefined restores the default. */
  set(asset: Asset, override: QuoteOverride | undefined): void {
    if (override) this.overrides.set(asset, override);
    else this.overrides.delete(asset);
  }

  reset(): void {
    this.overrides.clear();
  }

  /** The quote served now. */
  quote(asset: Asset): Quote {
    const override = this.overrides.get(asset) ?? {};
    const usd = override.usd ?? this.defaults[asset];
    const sparkline = override.sparkline ?? buildSparkline(usd);
    return {
      usd,
      sparkline,
      change24h: override.change24h ?? computeChange24h(sparkline),
      // Aggregators publish a reading a little behind real time.
      updatedAt: override.updatedAt ?? this.now() - 30_000,
    };
  }
}

/** A price API simulator: a Sim whose quotes a test can set. */
export interface PriceSim extends Sim {
  setPrice(asset: Asset, quote: QuoteOverride | undefined): void;
}

/** Wraps a running server and its price book into the simulator handle every price API shares. */
export function toPriceSim(name: string, url: string, server: SimServer, book: PriceBook): PriceSim {
  return {
    name,
    url,
    origin: server.origin,
    port: server.port,
    requests: server.requests,
    fault: (mode, faultOptions) => server.fault(mode, faultOptions),
    async reset() {
      book.reset();
      await server.reset();
    },
    close: () => server.close(),
    setPrice: (asset, quote) => book.set(asset, quote),
  };
}
