import type { AppDeps } from '../lib/deps';
import { FEE_HISTORY_BLOCKS } from '../lib/oracle/fee-history';
import { listStoredMainnetSlots } from '../lib/store/backfill-slots';
import { describeDbError } from '../lib/store/database';
import { HISTORY_RETENTION_DAYS, insertMainnetSnapshots, retentionCutoff } from '../lib/store/history-writes';
import { listSlotStarts, slotStartOf } from '../lib/store/slots';
import { type BackfillChain, createBackfillChain, MAX_FEE_HISTORY_BLOCKS } from './backfill-chain';
import { type BlockFee, groupSlotSpans, resolveSlots } from './backfill-tiers';
import { type BlockTime, resolveTimestamps, SECONDS_PER_BLOCK_SLOT } from './backfill-timestamps';

const DAY_MS = 86_400_000;
/** Missing slots closer than one chunk of blocks apart are read in one walk. */
const SPAN_GAP_MS = MAX_FEE_HISTORY_BLOCKS * SECONDS_PER_BLOCK_SLOT * 1000;

export interface BackfillOptions {
  /** How many days back from the current slot to fill; at most the mainnet retention (35). */
  days: number;
  /** Called after every chunk is stored, for a progress bar. */
  onProgress?: (progress: BackfillProgress) => void;
  /** Budget of one provider attempt (default: 4 x UPSTREAM_TIMEOUT_MS, at least 10 s). */
  timeoutMs?: number;
  /** Rounds over all providers before the run stops (default 3), and the pause after a failed round. */
  rounds?: number;
  retryDelayMs?: number;
}

/** Slots to fill (missing when the run started) and how many are done, by outcome. */
export interface BackfillProgress {
  total: number;
  done: number;
  written: number;
  /** Stored meanwhile by someone else (the live job, another backfill). */
  kept: number;
  /** No block in the slot (missed beacon slots), so no reading of its own. */
  empty: number;
  /** Tiers failed the oracle's sanity checks. */
  rejected: number;
}

export interface BackfillSummary extends BackfillProgress {
  fromMs: number;
  toMs: number;
  /** Slots of the window already stored before the run. */
  alreadyStored: number;
  /** Provider calls made (fee-history chunks and block headers). */
  calls: number;
  /** Labels of the providers whose data was stored. */
  providers: string[];
}

/** The run stopped (every provider failed repeatedly, or the store failed); what was stored stays. */
export class BackfillError extends Error {
  override name = 'BackfillError';
  constructor(
    message: string,
    readonly summary: BackfillSummary,
  ) {
    super(message);
  }
}

/**
 * The slots a backfill of `days` at `nowMs` covers: from `days` before the current slot, but none the
 * snapshot job's pruning would delete at once (older than the retention, counted from `nowMs`), up to
 * the current slot, which the live job writes.
 */
export function backfillWindow(nowMs: number, days: number): { fromMs: number; toMs: number } {
  const toMs = slotStartOf(nowMs);
  const fromMs = Math.max(
    toMs - Math.round(days * DAY_MS),
    retentionCutoff(nowMs, HISTORY_RETENTION_DAYS.mainnet),
  );
  return { fromMs, toMs };
}

/**
 * Fills mainnet history for the last `days` days (up to the current slot) from `eth_feeHistory`:
 * chunks of 1,024 blocks with the tier percentiles, block timestamps resolved from a few headers
 * (see resolveTimestamps), each 90-second slot given the live oracle's tiers at its end (see
 * resolveSlots), `source` `backfill:<provider>`. Only slots missing when it starts are read, and each
 * chunk's rows are stored (insert-if-absent) before the next is asked, so a rerun writes nothing new
 * and an interrupted run resumes where it stopped.
 */
export async function runBackfill(deps: AppDeps, options: BackfillOptions): Promise<BackfillSummary> {
  const { days } = options;
  if (!(days > 0 && days <= HISTORY_RETENTION_DAYS.mainnet)) {
    throw new RangeError(
      `days must be above 0 and at most ${HISTORY_RETENTION_DAYS.mainnet} (the retention)`,
    );
  }
  const { fromMs, toMs } = backfillWindow(deps.now(), days);
  const stored = new Set(await deps.withDb((db) => listStoredMainnetSlots(db, fromMs, toMs)));
  const missing = listSlotStarts(fromMs, toMs).filter((slot) => !stored.has(slot));
  const summary: BackfillSummary = {
    fromMs,
    toMs,
    alreadyStored: stored.size,
    total: missing.length,
    done: 0,
    written: 0,
    kept: 0,
    empty: 0,
    rejected: 0,
    calls: 0,
    providers: [],
  };
  if (missing.length === 0) return summary;

  const timeoutMs = options.timeoutMs ?? Math.max(10_000, 4 * deps.config.upstreamTimeoutMs);
  const chain = createBackfillChain(deps, { timeoutMs });
  const retry = withRounds(deps, options.rounds ?? 3, options.retryDelayMs ?? 2_000);
  const providers = new Set<string>();
  try {
    const head = await retry(() => chain.head());
    for (const span of groupSlotSpans(missing, SPAN_GAP_MS)) {
      await fillSpan(deps, chain, retry, head, span, (rows, outcome) => {
        for (const row of rows) providers.add(row.source.replace(/^backfill:/, ''));
        summary.done += outcome.resolved;
        summary.written += outcome.written;
        summary.kept += rows.length - outcome.written;
        summary.empty += outcome.empty;
        summary.rejected += outcome.rejected;
        summary.calls = chain.calls;
        summary.providers = [...providers];
        options.onProgress?.({ ...summary });
      });
    }
  } catch (error) {
    summary.calls = chain.calls;
    // One redacted line: provider labels and failure kinds, or the database's cause, never a URL.
    throw new BackfillError(describeDbError(error), summary);
  }
  summary.calls = chain.calls;
  return summary;
}

type Retry = <T>(call: () => Promise<T>) => Promise<T>;

/** Retries a provider call for a few rounds with a growing pause: a rate limit often lifts in seconds. */
function withRounds(deps: Pick<AppDeps, 'log'>, rounds: number, delayMs: number): Retry {
  return async (call) => {
    for (let round = 1; ; round++) {
      try {
        return await call();
      } catch (error) {
        if (round >= rounds) throw error;
        deps.log.warn('backfill: every provider failed; retrying', { round, error: String(error) });
        await new Promise((resolve) => setTimeout(resolve, delayMs * round));
      }
    }
  };
}

/** Walks the chain forward over one span of missing slots, storing each chunk's slots as it goes. */
async function fillSpan(
  deps: AppDeps,
  chain: BackfillChain,
  retry: Retry,
  head: BlockTime,
  span: number[],
  report: (
    rows: { source: string }[],
    outcome: { resolved: number; written: number; empty: number; rejected: number },
  ) => void,
): Promise<void> {
  // At most one block per 12 s since the Merge, so this block is at least 20 blocks before the span.
  const first = span[0] as number;
  const back =
    Math.ceil((head.timestamp * 1000 - first) / (SECONDS_PER_BLOCK_SLOT * 1000)) + FEE_HISTORY_BLOCKS;
  const anchorNumber = Math.max(0, head.number - back);
  let anchor: BlockTime = {
    number: anchorNumber,
    timestamp: await retry(() => chain.timestampOf(anchorNumber)),
  };
  let pending = span;
  let blocks: BlockFee[] = [];
  while (pending.length > 0 && anchor.number < head.number) {
    const from = anchor.number + 1;
    const to = Math.min(head.number, anchor.number + MAX_FEE_HISTORY_BLOCKS);
    const chunk = await retry(() => chain.feeChunk(from, to));
    const end: BlockTime =
      to === head.number ? head : { number: to, timestamp: await retry(() => chain.timestampOf(to)) };
    const times = await retry(() => resolveTimestamps(anchor, end, chain.timestampOf));
    const { history, provider } = chunk;
    for (let i = 0; i < history.gasUsedRatio.length; i++) {
      blocks.push({
        number: from + i,
        timestamp: times[i] as number,
        baseFee: history.baseFeePerGas[i] as bigint,
        nextBaseFee: history.baseFeePerGas[i + 1] as bigint,
        gasUsedRatio: history.gasUsedRatio[i] as number,
        reward: history.reward[i] as bigint[],
        provider,
      });
    }
    const outcome = resolveSlots(blocks, pending, to === head.number);
    const written =
      outcome.rows.length > 0 ? await deps.withDb((db) => insertMainnetSnapshots(db, outcome.rows)) : 0;
    report(outcome.rows, { ...outcome, written });
    pending = pending.slice(outcome.resolved);
    // Keep only what the next slots can still need: their windows reach 19 blocks back.
    blocks = blocks.slice(Math.max(0, blocks.length - FEE_HISTORY_BLOCKS - 1));
    anchor = end;
  }
}
