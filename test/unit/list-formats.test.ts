import fc from 'fast-check';
import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { columnsOf, csvRows, ndjsonRows, negotiateList, toCsv } from '../../src/transports/rest/list-formats.js';

const Item = z.strictObject({
  name: z.string(),
  n: z.number().nullable(),
  at: z.strictObject({ lat: z.number(), lng: z.number() }),
  note: z.string().optional(),
});

describe('list formats', () => {
  it('columns flatten nested objects in declaration order', () => {
    expect(columnsOf(Item).map((c) => c.name)).toEqual(['name', 'n', 'at.lat', 'at.lng', 'note']);
  });

  it('CSV round-trips any text through a parser nobody here wrote (commas, quotes, line breaks, any Unicode), a formula-like text behind a quote', () => {
    const columns = columnsOf(Item);
    // What a spreadsheet would run (OWASP, CSV injection) comes back with a leading quote; numbers as they are.
    const shown = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.oneof(
              fc.string(),
              fc.constantFrom(
                'a,b',
                'say "hi"',
                'two\r\nlines',
                'line\nfeed',
                ' spaced ',
                'Zürich',
                '',
                '=1+1',
                '+cmd',
                '-cmd|calc',
                '@SUM(A1)',
                '\tx',
                '\rx',
                "'quoted",
              ),
            ),
            n: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
            at: fc.record({ lat: fc.double({ min: -90, max: 90, noNaN: true }), lng: fc.double({ min: -180, max: 180, noNaN: true }) }),
          }),
          { maxLength: 20 },
        ),
        (items) => {
          const text = toCsv(items, columns);
          const rows = parseCsv(text, { columns: true, relax_column_count: false }) as Record<string, string>[];
          expect(rows).toEqual(
            items.map((i) => ({ name: shown(i.name), n: i.n === null ? '' : String(i.n), 'at.lat': String(i.at.lat), 'at.lng': String(i.at.lng), note: '' })),
          );
        },
      ),
    );
    expect(toCsv([{ name: 'a,"b"', n: 1, at: { lat: 1, lng: 2 } }], columns)).toBe('name,n,at.lat,at.lng,note\r\n"a,""b""",1,1,2,\r\n');
  });

  it('a page written in slices (as it is streamed) is the page written whole, a slice past the end clamped', () => {
    const columns = columnsOf(Item);
    const items = Array.from({ length: 7 }, (_, i) => ({ name: `z${i}`, n: i % 3 === 0 ? null : i / 2, at: { lat: i, lng: -i } }));
    for (const size of [1, 2, 3, 7, 10]) {
      let csv = '';
      let nd = '';
      for (let i = 0; i < items.length; i += size) {
        csv += csvRows(items, columns, i, i + size);
        nd += ndjsonRows(items, i, i + size);
      }
      expect(csv).toBe(csvRows(items, columns));
      expect(nd).toBe(ndjsonRows(items));
    }
    expect(csvRows(items, columns, 1, 2)).toBe('z1,0.5,1,-1,\r\n');
    expect(csvRows(items, columns, 7, 9)).toBe('');
    expect(ndjsonRows(items, 6, 100)).toBe(`${JSON.stringify(items[6])}\n`);
  });

  it('NDJSON is one object a line', () => {
    expect(ndjsonRows([{ a: 1 }, { b: 'x\ny' }])).toBe('{"a":1}\n{"b":"x\\ny"}\n');
    expect(ndjsonRows([])).toBe('');
  });

  it('negotiates by q-value then order; JSON without a preference; null (406) when nothing matches', () => {
    expect(negotiateList(undefined)).toBe('json');
    expect(negotiateList('*/*')).toBe('json');
    expect(negotiateList('text/csv')).toBe('csv');
    expect(negotiateList('text/*')).toBe('csv');
    expect(negotiateList('application/x-ndjson')).toBe('ndjson');
    expect(negotiateList('application/ndjson')).toBe('ndjson');
    expect(negotiateList('text/csv;q=0.4, application/x-ndjson;q=0.9')).toBe('ndjson');
    expect(negotiateList('text/csv, application/json')).toBe('csv');
    expect(negotiateList('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe('json');
    expect(negotiateList('application/xml')).toBeNull();
    expect(negotiateList('text/csv;q=0')).toBeNull();
  });
});
