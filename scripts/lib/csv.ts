import { readFile } from 'node:fs/promises';
import { weiToGwei } from '../../lib/units';

/** One row of a time series read from CSV: `time` in epoch milliseconds. */
export interface SeriesRow {
  time: number;
  value: number;
}

/** Which columns hold the time and the value; each by header name, defaulting to the first and second. */
export interface CsvSeriesOptions {
  timeColumn?: string;
  valueColumn?: string;
  /**
   * The value column holds whole wei: each cell is read as an integer and returned in gwei, exact to
   * the wei (`weiToGwei`); scaling the number by 1e-9 is not (3 wei gave 3.0000000000000004e-9).
   */
  valueInWei?: boolean;
}

/** A CSV file that cannot be read as a series; the message names the column or line at fault. */
export class CsvError extends Error {
  override name = 'CsvError';
}

/**
 * Splits one CSV line into fields (RFC 4180 quoting: `"a,b"` and `""` inside quotes), so exports
 * that quote every field (Etherscan) read the same as plain ones.
 */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields.map((value) => value.trim());
}

const NUMERIC = /^-?\d+(\.\d+)?$/;
/** A count of wei: whole, or a median's half wei (`27779527476.5`), rounded to the nearest wei. */
const WEI = /^(\d+)(?:\.(\d+))?$/;
// An ISO 8601 date, or date-time: `T` or one space, a one- or two-digit hour, minutes, optional
// seconds and fraction, and an optional zone, with or without a space before it: `Z`, `UTC` or `GMT`,
// or an offset ±hh, ±hhmm, ±hh:mm (after `UTC` or `GMT`, or before a zone abbreviation as Go writes
// one, `-0500 EST`, `+0000 UTC` or `-0300 -03`; the offset decides, see abbreviationProblem). It is
// built field by field with Date.UTC: Date.parse reads a form it does not know as ISO (a one-digit
// hour, two spaces, "03:04:05 PM") in the machine's zone, and the data sets here are all UTC.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?: ?(Z|UTC|GMT)| ?(?:UTC|GMT)?([+-]\d{2}(?::?\d{2})?)(?: ([A-Z]{2,5}|[+-]\d{2}(?:\d{2})?))?)?)?$/i;

/** The forms a time cell may take, for the error that refuses one. */
const TIME_FORMS =
  'an ISO 8601 date-time with a zone (Z, UTC, GMT, ±hh:mm, ±hhmm or ±hh; after an offset a zone name ' +
  'of 2 to 5 letters may follow, as Go writes -0500 EST), one without a zone or a date ' +
  '(read as UTC), or Unix seconds';

/**
 * Parses a time cell: Unix seconds, or an ISO 8601 date or date-time (UTC when it names no zone).
 * Anything else (another zone name, AM/PM, a date that does not exist) is undefined, never guessed.
 */
export function parseTimeCell(cell: string): number | undefined {
  const time = readTimeCell(cell);
  return typeof time === 'number' ? time : undefined;
}

/** Reads a time cell as parseTimeCell does; a cell it refuses gives why, and the forms allowed. */
function readTimeCell(cell: string): number | string {
  if (NUMERIC.test(cell)) return Number(cell) * 1000;
  const match = DATE_TIME.exec(cell);
  if (!match) return TIME_FORMS;
  const [, year, month, day, hour, minute, second, fraction = '', , zone = 'Z', abbreviation] = match;
  const [y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0] = [year, month, day, hour, minute, second].map(
    (field) => Number(field ?? 0),
  );
  // ISO 8601's 24:00:00 is the end of the day: the next day's midnight.
  const endOfDay = h === 24 && mi === 0 && sec === 0 && /^0*$/.test(fraction);
  const hours = endOfDay ? 0 : h;
  const at = new Date(Date.UTC(y, mo - 1, d, hours, mi, sec, Number(fraction.slice(0, 3).padEnd(3, '0'))));
  // Date.UTC rolls an out-of-range field over (Feb 30 to Mar 1, 25:00 to the next day): refused.
  const exists =
    at.getUTCFullYear() === y &&
    at.getUTCMonth() === mo - 1 &&
    at.getUTCDate() === d &&
    at.getUTCHours() === hours &&
    at.getUTCMinutes() === mi &&
    at.getUTCSeconds() === sec;
  const offset = zoneOffsetMs(zone);
  if (!exists || offset === undefined) return TIME_FORMS;
  const problem = abbreviation === undefined ? undefined : abbreviationProblem(abbreviation, zone, offset);
  if (problem) return problem;
  return at.getTime() + (endOfDay ? 86_400_000 : 0) - offset;
}

/** An offset's distance from UTC in ms (`Z` when the zone was a name: UTC, GMT); undefined if impossible. */
function zoneOffsetMs(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = zone.length > 3 ? Number(zone.slice(-2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

/** Names of UTC itself: after an offset other than zero they contradict it. */
const UTC_NAMES = /^(UTC|GMT|UT)$/i;

/**
 * Why a zone abbreviation after an offset is refused, or undefined when it is taken. Go's
 * time.String() writes the offset, then the zone's abbreviation: a name (`-0500 EST`,
 * `+0100 CET`, `+0000 UTC`) or, for a zone without one, the offset again (`-0300 -03`,
 * `+0530 +0530`). The offset decides: a name such as EST or IST stands for several offsets, so
 * none is looked up. Refused is only what visibly contradicts it: UTC, GMT or UT with an offset
 * other than zero, or a numeric abbreviation that is another offset (`+0530 +05`).
 */
function abbreviationProblem(abbreviation: string, offset: string, offsetMs: number): string | undefined {
  const numeric = /^[+-]/.test(abbreviation);
  const agrees = numeric
    ? zoneOffsetMs(abbreviation) === offsetMs
    : !UTC_NAMES.test(abbreviation) || offsetMs === 0;
  if (agrees) return undefined;
  return (
    `its zone abbreviation ${abbreviation} contradicts its offset ${offset}; after an offset may follow a ` +
    'zone name, which the offset decides (as Go writes -0500 EST; UTC, GMT or UT only with a zero offset), ' +
    'or the same offset (as Go writes -0300 -03), or write the offset alone'
  );
}

/** Finds a column by header name, or by position when no name is given. */
function resolveColumn(header: string[], name: string | undefined, position: number, role: string): number {
  if (name === undefined) {
    if (header.length <= position) {
      throw new CsvError(
        `the CSV has ${header.length} column(s); no ${role} column at position ${position + 1}`,
      );
    }
    return position;
  }
  const index = header.indexOf(name);
  if (index < 0) {
    throw new CsvError(`${role} column "${name}" is not in the header (columns: ${header.join(', ')})`);
  }
  return index;
}

/**
 * Reads an hourly (or any) series from CSV text with a header line: one time column and one value
 * column, returned sorted by time. Blank lines are skipped; any unreadable cell stops with an error
 * naming its line and column, because a silently dropped row would bias a back-test.
 */
export function parseCsvSeries(text: string, options: CsvSeriesOptions = {}): SeriesRow[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerLine = lines.findIndex((line) => line.trim() !== '');
  if (headerLine < 0) throw new CsvError('the CSV is empty: no header line');
  const header = splitCsvLine(lines[headerLine] ?? '');
  const timeIndex = resolveColumn(header, options.timeColumn, 0, 'time');
  const valueIndex = resolveColumn(header, options.valueColumn, 1, 'value');
  const timeName = header[timeIndex];
  const valueName = header[valueIndex];

  const rows: SeriesRow[] = [];
  for (let i = headerLine + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    const cells = splitCsvLine(line);
    const timeCell = cells[timeIndex] ?? '';
    const valueCell = cells[valueIndex] ?? '';
    const time = readTimeCell(timeCell);
    if (typeof time === 'string') {
      throw new CsvError(
        `line ${i + 1}: time column "${timeName}" holds "${timeCell}", not a time (${time})`,
      );
    }
    if (options.valueInWei) {
      const wei = WEI.exec(valueCell);
      if (!wei) {
        throw new CsvError(
          `line ${i + 1}: value column "${valueName}" holds "${valueCell}", not a number of wei (digits, with an optional fraction)`,
        );
      }
      // A fraction of a wei (a median of two) rounds to the nearest wei, a half up.
      const roundUp = (wei[2] ?? '0') >= '5' ? 1n : 0n;
      rows.push({ time, value: weiToGwei(BigInt(wei[1] ?? '0') + roundUp) });
      continue;
    }
    const value = Number(valueCell);
    if (valueCell === '' || !Number.isFinite(value)) {
      throw new CsvError(`line ${i + 1}: value column "${valueName}" holds "${valueCell}", not a number`);
    }
    rows.push({ time, value });
  }
  return rows.sort((a, b) => a.time - b.time);
}

/** Reads a CSV file from disk as a series (see `parseCsvSeries`). */
export async function readCsvSeries(path: string, options: CsvSeriesOptions = {}): Promise<SeriesRow[]> {
  return parseCsvSeries(await readFile(path, 'utf8'), options);
}
