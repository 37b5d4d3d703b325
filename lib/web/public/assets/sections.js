// Renders each section of the dashboard from the API payloads. Every function copes with a missing
// payload (that feed failed) and with fields a newer or older API may or may not carry.
import { age, badge, clockDay, clockSeconds, gwei, gweiEstimate, h, num, pct, usd } from './dom.js';

export const TRANSFER_GAS = 21_000;
export const SWAP_GAS = 65_000;
const TIER_NAMES = { low: ['Low', 'economy'], average: ['Average', 'standard'], high: ['High', 'fast'] };
const TREND_WORDS = { rising: 'rising ↑', falling: 'falling ↓', flat: 'flat →' };

/** USD cost of `gasUnits` at `feeGwei` with ETH at `ethUsd`; null without a price. */
export function costUsd(feeGwei, gasUnits, ethUsd) {
  return ethUsd === null || ethUsd === undefined ? null : feeGwei * gasUnits * 1e-9 * ethUsd;
}

/**
 * The decision in plain words (SPEC decision 1 fields). `savedUsd` is what waiting saves on a transfer
 * (null without a price): at sub-gwei fees a 30 % saving can be a fraction of a cent, and a person
 * should see that beside the percentage. `rough` (the API's `usingFallbackData`): the forecast came
 * from the built-in weekly profile, not stored history, so the advice says so and states no likelihood.
 */
export function decisionText(decision, gas, savedUsd = null, cheaperAhead = false, rough = false) {
  const estimate = ". A rough estimate from a typical week's pattern, not this chain's stored history";
  if (decision.recommendation === 'wait') {
    const minutes = decision.nextBestEtaMinutes;
    const when = minutes < 60 ? `about ${Math.max(1, minutes)} min` : `about ${Math.round(minutes / 60)} h`;
    // A forecast is never certain: "100 % likely" would overstate a rounded 0.998.
    const likely = Math.min(99, Math.round(decision.confidence * 100));
    const worth = savedUsd === null ? '' : ` (about ${usd(savedUsd)} on a transfer)`;
    const lower = `Wait ${when} for ~${Math.round(decision.expectedSavingsPct)} % lower fees${worth}`;
    return rough ? `${lower}${estimate}` : `${lower}, ${likely} % likely`;
  }
  const percentile = gas?.baseFeePercentile7d;
  // Ranked among stored readings, not forecast: no estimate to qualify.
  if (typeof percentile === 'number' && percentile <= 25) return 'Send now: fees are near their weekly low';
  // A cheaper hour may well be forecast; the advice is that waiting for it does not pay.
  const advice = cheaperAhead
    ? 'Send now: waiting is not expected to pay off in the next 24 h'
    : 'Send now: no cheaper hour is expected in the next 24 h';
  return rough ? `${advice}${estimate}` : advice;
}

/** Decision box: the sentence, and a detail line naming the cheapest hour ahead. */
export function renderDecision(el, detail, dashboard, gas) {
  if (!dashboard) {
    el.dataset.state = 'unavailable';
    el.textContent = 'The send-or-wait advice is unavailable right now.';
    detail.textContent = 'It returns as soon as the forecast can be read again.';
    return;
  }
  const d = dashboard.decision;
  el.dataset.state = d.recommendation;
  el.dataset.recommendation = d.recommendation;
  const now = dashboard.currentGas.average;
  const saved = costUsd((now * d.expectedSavingsPct) / 100, TRANSFER_GAS, dashboard.ethPrice?.usd);
  // The sentence is a live region: rewrite it only when it changes, so a refresh is not re-announced.
  const cheapest = dashboard.nextBestWindow;
  // The rank of the same reading the decision was made from (the dashboard's), else /api/gas's.
  const ranked = typeof dashboard.currentGas?.baseFeePercentile7d === 'number' ? dashboard.currentGas : gas;
  const text = decisionText(d, ranked, saved, Boolean(cheapest), dashboard.usingFallbackData === true);
  if (el.textContent !== text) el.textContent = text;
  if (d.recommendation === 'wait') {
    // The hour waited for and its expected price (sudden jumps and past errors priced in), which can
    // differ from the cheapest point of the forecast below.
    detail.textContent = `Waiting for around ${clockDay(d.nextBestAt)}: about ${gweiEstimate(d.expectedGas)} gwei expected, jump risk included, against ${gwei(now)} gwei now.`;
  } else if (cheapest) {
    // The decision's expected price there counts the risk of a fee jump before then: why a forecast
    // cheaper hour can still not be worth the wait.
    const expected =
      d.nextBestAt === cheapest.timestamp
        ? `; with the risk of a fee jump before then, about ${gweiEstimate(d.expectedGas)} gwei is expected, too little saving to wait for`
        : '';
    detail.textContent = `Cheapest predicted hour: around ${clockDay(cheapest.timestamp)}, ${gweiEstimate(cheapest.gasPrices.average)} gwei against ${gwei(now)} gwei now${expected}.`;
  } else {
    detail.textContent = `Now (${gwei(now)} gwei) is the cheapest time the forecast expects.`;
  }
}

/**
 * The three tier cards and the facts line under them. `dataAt`: when the reading was taken, in this
 * browser's clock (its age by the server's clock), so a browser clock set wrong does not age it.
 */
export function renderGas(list, facts, state, gas, ethUsd, dataAt) {
  for (const li of list.children) {
    const tier = li.dataset.tier;
    const [name, role] = TIER_NAMES[tier];
    const fee = gas?.[tier];
    const extra = gas?.tiers?.[tier];
    const rows = [
      ['Transfer', fee === undefined ? null : costUsd(fee, TRANSFER_GAS, ethUsd), 'transfer'],
      ['Token swap', fee === undefined ? null : costUsd(fee, SWAP_GAS, ethUsd), 'swap'],
    ].flatMap(([label, value, key]) => [
      h('dt', {}, label),
      h(
        'dd',
        { 'data-cost': key },
        value === null ? (ethUsd == null ? 'no price' : '—') : num(value, usd(value)),
      ),
    ]);
    if (extra) {
      rows.push(
        h('dt', {}, 'Max fee'),
        h('dd', {}, num(extra.maxFeePerGas, `${gwei(extra.maxFeePerGas)} gwei`)),
      );
      rows.push(
        h('dt', {}, 'Priority fee'),
        h('dd', {}, num(extra.maxPriorityFeePerGas, `${gwei(extra.maxPriorityFeePerGas)} gwei`)),
      );
      // The explorer backstop has no per-block data to estimate waits from.
      const wait = extra.estimatedWaitSeconds;
      rows.push(
        h('dt', {}, 'Wait'),
        h('dd', {}, wait ? `~${wait.p50} s (90 %: ${wait.p90} s)` : 'unavailable'),
      );
    }
    li.replaceChildren(
      h('h3', {}, `${name} `, h('span', { class: 'visually-hidden' }, `(${role})`)),
      h('p', { class: 'gwei' }, fee === undefined ? '—' : num(fee, gwei(fee)), ' ', h('small', {}, 'gwei')),
      h('dl', {}, rows),
    );
  }
  const items = [];
  const fact = (label, value, key) =>
    items.push(h('div', { 'data-fact': key }, h('dt', {}, label), h('dd', {}, value)));
  if (gas) {
    const trend = gas.baseFeeTrend ? ` (${TREND_WORDS[gas.baseFeeTrend] ?? gas.baseFeeTrend})` : '';
    // The API's base fee is the next block's; a separate "Next block" would repeat it.
    fact('Base fee, next block', [num(gas.baseFee, `${gwei(gas.baseFee)} gwei`), trend], 'baseFee');
    if (typeof gas.nextBaseFee === 'number' && gas.nextBaseFee !== gas.baseFee)
      fact('Next block', num(gas.nextBaseFee, `${gwei(gas.nextBaseFee)} gwei`), 'nextBaseFee');
    if ('blobBaseFee' in gas) {
      fact(
        'Blob base fee',
        gas.blobBaseFee === null ? 'unavailable' : num(gas.blobBaseFee, `${gwei(gas.blobBaseFee)} gwei`),
        'blobBaseFee',
      );
    }
    fact('Block', num(gas.blockNumber, gas.blockNumber.toLocaleString('en-US')), 'block');
    fact('Source', gas.source, 'source');
  }
  facts.replaceChildren(...items);
  if (!gas) return badge(state, 'unavailable', 'Unavailable: no live or recent reading');
  if (gas.source.startsWith('stale:')) {
    const old = age(Date.now() - dataAt);
    return badge(
      state,
      'stale',
      `Stale: last good reading from ${clockSeconds(dataAt)} (${old} old); live sources are failing`,
    );
  }
  badge(state, 'info', `Block ${gas.blockNumber.toLocaleString('en-US')} · ${clockSeconds(gas.updatedAt)}`);
}

/** One row per Layer 2 network. */
export function renderL2(tbody, state, l2) {
  if (!l2) {
    tbody.replaceChildren();
    return badge(state, 'unavailable', 'Unavailable right now');
  }
  const missing = l2.networks.some((n) => n.gasPriceGwei === null);
  const stale = l2.networks.some(isStaleL2);
  if (missing) badge(state, 'unavailable', 'Some networks unavailable');
  else if (stale) badge(state, 'stale', 'Some networks stale');
  else badge(state, 'info', `Updated ${clockSeconds(l2.fetchedAt)}`);
  tbody.replaceChildren(...l2.networks.map(l2Row));
}

/** The service's feeNote opens with this when every provider failed and the last good reading is served. */
function isStaleL2(n) {
  return n.gasPriceGwei !== null && n.feeNote.startsWith('Live providers did not answer');
}

function l2Row(n) {
  const cell = (label, ...content) => h('td', { 'data-label': label }, ...content);
  const stale = isStaleL2(n) ? h('span', { class: 'sub' }, 'stale: last good reading') : '';
  const name = h('th', { scope: 'row' }, n.name, stale);
  if (n.gasPriceGwei === null) {
    return h(
      'tr',
      { 'data-network': n.id },
      name,
      cell('Gas price', 'Reading unavailable'),
      cell('Transfer cost', '—'),
      cell('L1 data fee share', '—'),
      cell('Fee completeness', '—'),
    );
  }
  const arbitrum = arbitrumTransferUsd(n);
  const wallet = arbitrum ? arbitrum.total : (n.estimatedWalletFeeUsd ?? n.executionGasCostUsd);
  let share;
  if (n.feeModel === 'sidechain')
    share = [num(0, '0 %'), h('span', { class: 'sub' }, 'sidechain, no L1 fee')];
  else if (n.estimatedL1DataFeeUsd !== null && wallet)
    share = num(n.estimatedL1DataFeeUsd / wallet, pct((100 * n.estimatedL1DataFeeUsd) / wallet));
  else if (arbitrum)
    share = [
      num(arbitrum.l1 / arbitrum.total, pct((100 * arbitrum.l1) / arbitrum.total)),
      h('span', { class: 'sub' }, 'as extra gas units'),
    ];
  else if (typeof n.estimatedL1GasUnits === 'number') {
    // No price: the share of the gas units, which is the share of the cost at one gas price.
    const ratio = n.estimatedL1GasUnits / (TRANSFER_GAS + n.estimatedL1GasUnits);
    share = [num(ratio, pct(100 * ratio)), h('span', { class: 'sub' }, 'as extra gas units')];
  } else
    share = [
      '—',
      h(
        'span',
        { class: 'sub' },
        n.feeModel === 'rollup_arbitrum_nitro' ? 'charged as extra gas, not shown' : 'unavailable',
      ),
    ];
  return h(
    'tr',
    { 'data-network': n.id },
    name,
    cell(
      'Gas price',
      num(n.gasPriceGwei, `${gwei(n.gasPriceGwei)} gwei`),
      n.nativeToken !== 'ETH' ? h('span', { class: 'sub' }, `paid in ${n.nativeToken}`) : '',
    ),
    cell(
      'Transfer cost',
      wallet === null ? 'no price' : num(wallet, usd(wallet)),
      arbitrum ? h('span', { class: 'sub' }, 'with L1 gas') : '',
    ),
    cell('L1 data fee share', share),
    cell(
      'Fee completeness',
      arbitrum || n.feeCompleteness === 'full_estimate' ? 'Full estimate' : 'Execution only',
    ),
  );
}

/**
 * Arbitrum's whole transfer in USD when its L1 component was read: the API's wallet fee there is the
 * execution cost alone (SPEC 2.10), and Nitro charges the L1 part as `estimatedL1GasUnits` extra gas at
 * the L2 base fee (the gas price where no base fee was read), so the transfer costs the execution cost
 * plus those units (the NodeInterface pads them 10 % for estimates; the MCP tool totals the same).
 * Null elsewhere, and without the units or a price.
 */
function arbitrumTransferUsd(n) {
  if (n.feeModel !== 'rollup_arbitrum_nitro' || typeof n.estimatedL1GasUnits !== 'number') return null;
  if (n.executionGasCostUsd === null || n.nativeUsd === null) return null;
  const l1 = costUsd(n.baseFee ?? n.gasPriceGwei, n.estimatedL1GasUnits, n.nativeUsd);
  return { l1, total: n.executionGasCostUsd + l1 };
}

/** ETH/USD with its 24 h change; the state badge says stale or unavailable plainly. */
export function renderPrice(el, state, price) {
  if (!price || price.usd === null) {
    el.replaceChildren(h('span', { class: 'none' }, 'Price unavailable'));
    return badge(state, 'unavailable', 'Unavailable: no price source is answering');
  }
  const change = price.change_24h;
  // A change that rounds to zero is shown as 0 %, without a sign ("−0 %") or a direction.
  const shown = change === null ? 0 : Number(change.toFixed(2));
  const direction = shown > 0 ? ' up' : shown < 0 ? ' down' : '';
  el.replaceChildren(
    num(price.usd, usd(price.usd)),
    change === null
      ? h('span', { class: 'change' }, '24 h change n/a')
      : h(
          'span',
          { class: `change${direction}` },
          num(change, `${shown > 0 ? '+' : shown < 0 ? '−' : ''}${pct(Math.abs(shown), 2)}`),
          ' 24 h',
        ),
  );
  if (price.source.startsWith('stale-')) {
    badge(state, 'stale', `Stale: last good price, ${age(price.staleAgeMs ?? 0)} old`);
  } else badge(state, 'info', `via ${price.priceSource ?? price.source}`);
}

/** The forecast-accuracy line; hidden when the endpoint is absent or failing. */
export function renderAccuracy(section, el, accuracy) {
  section.hidden = !accuracy;
  if (!accuracy) return;
  const { mae, decision, origins, window } = accuracy;
  if (!origins || !mae || mae.model === null) {
    el.textContent = 'Not enough past forecasts have been scored yet.';
    return;
  }
  const how = accuracy.source === 'backtest' ? 'forecasts replayed from stored history' : 'forecasts served';
  let text =
    `Over the last ${window.replace(/^(\d+)d$/, '$1 days')} (${origins} ${how}), the forecast was off by ${gwei(mae.model)} gwei on average, ` +
    `against ${gwei(mae.persistence)} gwei for assuming no change and ${gwei(mae.sameHourYesterday)} gwei for the same hour yesterday.`;
  if (decision && typeof decision.realizedSavingPct === 'number') {
    const saving = decision.realizedSavingPct;
    // A negative saving is a loss: following the advice cost more than sending at once.
    text +=
      saving < 0
        ? ` Following its advice cost ${pct(-saving)} more than sending at once on average`
        : ` Following its advice saved ${pct(saving)} on average`;
    if (typeof decision.oracleSavingPct !== 'number') text += '.';
    else
      text +=
        saving < 0
          ? `, where a perfect forecast would have saved ${pct(decision.oracleSavingPct)}.`
          : `, of the ${pct(decision.oracleSavingPct)} a perfect forecast would have saved.`;
  }
  el.textContent = text;
}
