/** Length of one history slot: one mainnet snapshot and one per L2 network per slot (SPEC decision 15). */
export const SLOT_SECONDS = 90;
export const SLOT_MS = SLOT_SECONDS * 1000;

/** Returns the start (epoch ms) of the 90-second slot holding `ms`: floor(epoch seconds / 90) * 90. */
export function slotStartOf(ms: number): number {
  return Math.floor(ms / SLOT_MS) * SLOT_MS;
}

/** Tells whether `ms` is exactly a slot start, the only time a snapshot row may carry. */
export function isSlotStart(ms: number): boolean {
  return Number.isInteger(ms) && ms % SLOT_MS === 0;
}

/** Lists the slot starts in [fromMs, toMs), oldest first; for backfills and gap checks. */
export function listSlotStarts(fromMs: number, toMs: number): number[] {
  const slots: number[] = [];
  for (let slot = Math.ceil(fromMs / SLOT_MS) * SLOT_MS; slot < toMs; slot += SLOT_MS) slots.push(slot);
  return slots;
}
