import { describe, expect, it } from 'vitest';
import { CsvError, parseCsvSeries, parseTimeCell, splitCsvLine } from '../../scripts/lib/csv';

describe('parseCsvSeries', () => {
  it('reads the first two columns by default, ISO times, sorted by time', () => {
    const rows = parseCsvSeries('time,gwei\n2024-01-01T01:00:00Z,2.5\n2024-01-01T00:00:00Z,0.125\n');
    expect(rows).toEqual([
      { time: Date.parse('2024-01-01T00:00:00Z'), value: 0.125 },
      { time: Date.parse('2024-01-01T01:00:00Z'), value: 2.5 },
    ]);
  });

  it('picks columns by name and reads Unix seconds', () => {
    const text = 'a,unix_ts,b,close_gwei\nx,1730860552,y,26.0095\nx,1730864155,y,43.0291\n';
    const rows = parseCsvSeries(text, { timeColumn: 'unix_ts', valueColumn: 'close_gwei' });
    expect(rows).toEqual([
      { time: 1730860552000, value: 26.0095 },
      { time: 1730864155000, value: 43.0291 },
    ]);
  });

  it('reads quoted fields and zone-less "YYYY-MM-DD HH:MM:SS" times as UTC', () => {
    const rows = parseCsvSeries('"Date","Value (Wei)"\r\n"2023-05-03 13:49:00","15"\r\n', {
      valueColumn: 'Value (Wei)',
    });
    expect(rows).toEqual([{ time: Date.parse('2023-05-03T13:49:00Z'), value: 15 }]);
    expect(splitCsvLine('"a ""b""",c')).toEqual(['a "b"', 'c']);
    expect(parseTimeCell('not a time')).toBeUndefined();
  });

  it('reads a zone-less "YYYY-MM-DDTHH:MM:SS" as UTC too, whatever the machine\'s zone, and keeps a stated zone', () => {
    const zone = process.env.TZ;
    // A zone where local time is not UTC: read as local, 10:00 would land at 15:00 UTC.
    process.env.TZ = 'America/New_York';
    try {
      expect(new Date(Date.UTC(2026, 10, 25)).getTimezoneOffset()).toBe(300);
      expect(parseTimeCell('2026-11-25T10:00:00')).toBe(Date.UTC(2026, 10, 25, 10));
      expect(parseTimeCell('2026-11-25T10:00')).toBe(Date.UTC(2026, 10, 25, 10));
      expect(parseTimeCell('2026-11-25T10:00:00+02:00')).toBe(Date.UTC(2026, 10, 25, 8));
      // Forms Date.parse read in the machine's zone (15:04 UTC here): a one-digit hour, with or without seconds.
      expect(parseTimeCell('2024-01-02 3:04:05')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
      expect(parseTimeCell('2024-01-02 3:04')).toBe(Date.UTC(2024, 0, 2, 3, 4));
      expect(parseTimeCell('2024-01-02T3:04:05')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
      expect(parseTimeCell('2024-01-02')).toBe(Date.UTC(2024, 0, 2));
      expect(parseTimeCell('2024-01-02 03:04:05.1234567')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 123));
      // Stated zones: Z, " UTC", and offsets ±hh:mm, ±hhmm, ±hh (PostgreSQL writes "+00").
      expect(parseTimeCell('2024-01-02T03:04:05Z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
      expect(parseTimeCell('2024-01-02 03:04:05 UTC')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
      expect(parseTimeCell('2024-01-02T03:04:05-0530')).toBe(Date.UTC(2024, 0, 2, 8, 34, 5));
      expect(parseTimeCell('2024-01-02 03:04:05+00')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
      // With a space before the zone, in either case, and Go's "+0000 UTC" (offset and name agree).
      expect(parseTimeCell('2024-01-02T03:04:05 +02:00')).toBe(Date.UTC(2024, 0, 2, 1, 4, 5));
      expect(parseTimeCell('2024-01-02 03:04:05 -0500')).toBe(Date.UTC(2024, 0, 2, 8, 4, 5));
      expect(parseTimeCell('2024-01-02 03:04:05.123456789 +0000 UTC')).toBe(
        Date.UTC(2024, 0, 2, 3, 4, 5, 123),
      );
      expect(parseTimeCell('2024-01-02 03:04:05 GMT+0100')).toBe(Date.UTC(2024, 0, 2, 2, 4, 5));
      expect(parseTimeCell('2024-01-02 03:04:05 utc')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
      expect(parseTimeCell('2024-01-02T03:04:05z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
      // ISO 8601's end of the day.
      expect(parseTimeCell('2024-01-02 24:00')).toBe(Date.UTC(2024, 0, 3));
      // Anything else is refused rather than read in the machine's zone or rolled over.
      for (const cell of [
        '2024-01-02 03:04:05 PM',
        '2024-01-02  03:04:05',
        '2024-01-02 03:04:05 EST',
        '2024-01-02 03:04:05 +0000 UTC extra',
        '2023-02-29',
        '2024-01-02 24:00:01',
        '2024-01-02 25:00',
        '2024-01-02T03:04:05+25:00',
        'Jan 2, 2024 03:04:05',
        '',
      ]) {
        expect(parseTimeCell(cell), cell).toBeUndefined();
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("reads Go's time.String() for any zone: the offset, then the zone's name, which the offset decides", () => {
    // A named zone (2024-01-02 03:04:05 -0500 EST): the import stopped at these until 2026-11-28.
    expect(parseTimeCell('2024-01-02 03:04:05 -0500 EST')).toBe(Date.UTC(2024, 0, 2, 8, 4, 5));
    expect(parseTimeCell('2024-07-02 03:04:05 +0100 BST')).toBe(Date.UTC(2024, 6, 2, 2, 4, 5));
    expect(parseTimeCell('2024-01-02 03:04:05.123 +1300 NZDT')).toBe(Date.UTC(2024, 0, 1, 14, 4, 5, 123));
    // IST is India's (+0530), Ireland's (+0100) and Israel's (+0200): the offset says which.
    expect(parseTimeCell('2024-01-02 03:04:05 +0530 IST')).toBe(Date.UTC(2024, 0, 1, 21, 34, 5));
    expect(parseTimeCell('2024-01-02 03:04:05 +0200 IST')).toBe(Date.UTC(2024, 0, 2, 1, 4, 5));
    expect(parseTimeCell('2024-01-02 03:04:05 +1000 ChST')).toBe(Date.UTC(2024, 0, 1, 17, 4, 5));
    // UTC itself, and a zone without a name, whose name Go writes as its offset: read as before.
    expect(parseTimeCell('2024-01-02 03:04:05 +0000 UTC')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(parseTimeCell('2024-01-02 03:04:05 +0000 GMT')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(parseTimeCell('2024-01-02 03:04:05 -0300 -03')).toBe(Date.UTC(2024, 0, 2, 6, 4, 5));
    expect(parseTimeCell('2024-01-02 03:04:05 +0530 +0530')).toBe(Date.UTC(2024, 0, 1, 21, 34, 5));
  });

  it('refuses a zone abbreviation that can be seen to contradict its offset', () => {
    for (const cell of [
      // UTC's own names with another offset.
      '2024-01-02 03:04:05 -0500 UTC',
      '2024-01-02 03:04:05 +0100 GMT',
      '2024-01-02 03:04:05 +0100 gmt',
      '2024-01-02 03:04:05 -0500 UT',
      // Z is no abbreviation: after an offset it is not read at all.
      '2024-01-02 03:04:05 -0500 Z',
      // Another offset written as the abbreviation.
      '2024-01-02 03:04:05 +0530 +0500',
      '2024-01-02 03:04:05 +0530 +05',
      '2024-01-02 03:04:05 -0300 +03',
      // Not a name as Go writes one: 2 to 5 letters.
      '2024-01-02 03:04:05 -0500 E',
      '2024-01-02 03:04:05 -0500 EASTERN',
      '2024-01-02 03:04:05 -0500 E5T',
    ]) {
      expect(parseTimeCell(cell), cell).toBeUndefined();
    }
  });

  it('says which abbreviation a time cell has against its offset, and what may follow an offset', () => {
    expect(() =>
      parseCsvSeries('t,v\n2024-01-02 03:04:05 -0500 EST,1\n2024-01-02 03:04:05 -0500 UTC,2\n'),
    ).toThrow(
      'line 3: time column "t" holds "2024-01-02 03:04:05 -0500 UTC", not a time (its zone abbreviation UTC ' +
        'contradicts its offset -0500; after an offset may follow a zone name, which the offset decides ' +
        '(as Go writes -0500 EST; UTC, GMT or UT only with a zero offset), or the same offset (as Go writes ' +
        '-0300 -03), or write the offset alone)',
    );
    expect(() => parseCsvSeries('t,v\n2024-01-02 03:04:05 +0530 +05,1\n')).toThrow(
      /^line 2: time column "t" holds "2024-01-02 03:04:05 \+0530 \+05", not a time \(its zone abbreviation \+05 contradicts its offset \+0530;/,
    );
    expect(() => parseCsvSeries('t,v\n2024-01-02 03:04:05 -0500 EASTERN,1\n')).toThrow(
      /after an offset a zone name of 2 to 5 letters may follow, as Go writes -0500 EST\)/,
    );
  });

  it('names the missing column and lists the ones that exist', () => {
    expect(() => parseCsvSeries('t,v\n2024-01-01T00:00:00Z,1\n', { valueColumn: 'close_gwei' })).toThrow(
      /value column "close_gwei" is not in the header \(columns: t, v\)/,
    );
    expect(() => parseCsvSeries('t\n2024-01-01T00:00:00Z\n')).toThrow(CsvError);
  });

  it('stops at an unreadable cell, naming its line and column', () => {
    expect(() => parseCsvSeries('t,v\n2024-01-01T00:00:00Z,1\nyesterday,2\n')).toThrow(
      /line 3: time column "t" holds "yesterday", not a time \(an ISO 8601 date-time with a zone .* or Unix seconds\)/,
    );
    expect(() => parseCsvSeries('t,v\n2024-01-01T00:00:00Z,\n')).toThrow(/line 2: value column "v" holds ""/);
  });

  it("reads a wei column in gwei exact to the wei, a median's half wei rounded, and refuses a cell that is not wei", () => {
    const text = 't,wei\n1704164645,3\n1704164735,12345678901\n1704164825,7\n';
    expect(parseCsvSeries(text, { valueInWei: true }).map((row) => row.value)).toEqual([
      3e-9, 12.345678901, 7e-9,
    ]);
    // Medians of two, as in the blob-fee sample's blob_base_fee_wei_median: a half rounds up.
    const medians = 't,wei\n1704164645,27779527476.5\n1704164735,1.49\n';
    expect(parseCsvSeries(medians, { valueInWei: true }).map((row) => row.value)).toEqual([
      27.779527477, 1e-9,
    ]);
    expect(() => parseCsvSeries('t,wei\n1704164645,3\n1704164735,-1\n', { valueInWei: true })).toThrow(
      /line 3: value column "wei" holds "-1", not a number of wei/,
    );
    expect(() => parseCsvSeries('t,wei\n1704164645,3e9\n', { valueInWei: true })).toThrow(CsvError);
  });

  it('rejects an empty file', () => {
    expect(() => parseCsvSeries('\n\n')).toThrow(/empty/);
  });
});
