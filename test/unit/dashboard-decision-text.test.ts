// The dashboard's decision sentence (lib/web/public/assets/sections.js, a browser module whose
// decisionText touches no DOM): with the built-in profile standing in for stored history
// (`usingFallbackData`), the advice says it is a rough estimate and gives no likelihood.
import { describe, expect, it } from 'vitest';

type Decision = {
  recommendation: 'wait' | 'send_now';
  nextBestEtaMinutes: number;
  expectedSavingsPct: number;
  confidence: number;
};
type DecisionText = (
  decision: Decision,
  gas: { baseFeePercentile7d?: number | null } | null,
  savedUsd?: number | null,
  cheaperAhead?: boolean,
  rough?: boolean,
) => string;

const { decisionText } = (await import(
  new URL('../../lib/web/public/assets/sections.js', import.meta.url).href
)) as { decisionText: DecisionText };

const wait: Decision = {
  recommendation: 'wait',
  nextBestEtaMinutes: 900,
  expectedSavingsPct: 25,
  confidence: 0.81,
};
const sendNow: Decision = { ...wait, recommendation: 'send_now', expectedSavingsPct: 0 };
const ROUGH = /rough estimate from a typical week's pattern, not this chain's stored history/;

describe('dashboard decision sentence', () => {
  it('gives the likelihood of a wait forecast from stored history', () => {
    const text = decisionText(wait, null, 0.0016, true, false);
    expect(text).toBe('Wait about 15 h for ~25 % lower fees (about $0.0016 on a transfer), 81 % likely');
  });

  it('calls a wait from the built-in profile a rough estimate, with no likelihood', () => {
    const text = decisionText(wait, null, 0.0016, true, true);
    expect(text).toMatch(/^Wait about 15 h for ~25 % lower fees \(about \$0\.0016 on a transfer\)/);
    expect(text).toMatch(ROUGH);
    expect(text).not.toMatch(/likely/);
  });

  it.each([true, false])(
    'calls send-now from the built-in profile a rough estimate (cheaper hour ahead: %s)',
    (ahead) => {
      const text = decisionText(sendNow, null, null, ahead, true);
      expect(text).toMatch(/^Send now: /);
      expect(text).toMatch(ROUGH);
      expect(decisionText(sendNow, null, null, ahead, false)).not.toMatch(ROUGH);
    },
  );
});

type RenderAccuracy = (section: { hidden: boolean }, el: { textContent: string }, accuracy: unknown) => void;
const { renderAccuracy } = (await import(
  new URL('../../lib/web/public/assets/sections.js', import.meta.url).href
)) as { renderAccuracy: RenderAccuracy };

describe('dashboard forecast-accuracy sentence', () => {
  const accuracy = (realizedSavingPct: number) => ({
    window: '7d',
    source: 'live',
    origins: 120,
    mae: { model: 0.01, persistence: 0.02, sameHourYesterday: 0.03 },
    decision: { realizedSavingPct, oracleSavingPct: 20.1 },
  });
  const render = (value: unknown) => {
    const section = { hidden: true };
    const el = { textContent: '' };
    renderAccuracy(section, el, value);
    return el.textContent;
  };

  it('says what following the advice saved', () => {
    expect(render(accuracy(12.4))).toContain(
      'Following its advice saved 12.4 % on average, of the 20.1 % a perfect forecast would have saved.',
    );
  });

  it('calls a negative saving a cost, never "saved -12.4 %"', () => {
    const text = render(accuracy(-12.4));
    expect(text).toContain(
      'Following its advice cost 12.4 % more than sending at once on average, where a perfect forecast would have saved 20.1 %.',
    );
    expect(text).not.toContain('saved -');
  });
});
