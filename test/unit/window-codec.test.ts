import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeWindow, encodeWindow, MAX_WINDOW_BYTES, MAX_WINDOW_ROWS } from '../../src/cluster/window-codec.js';
import type { PublishedWindow } from '../../src/cluster/window-store.js';

/** A window of 2,500 rows: more than one turn's slice, to make and to read. */
const window: PublishedWindow = {
  from: '2026-11-01',
  to: '2026-11-30',
  fields: ['resort_id', 'date', 'source', 'snow'],
  days: Array.from({ length: 2500 }, (_, i) => [
    `resort-${Math.floor(i / 30)}`,
    `2026-11-${String((i % 30) + 1).padStart(2, '0')}`,
    'open-meteo',
    i % 7 === 0 ? null : i / 10,
  ]),
  lifts: [{ resortId: 'resort-0', ordinal: 1, name: 'Gondola "A"\nline', status: 'OPEN', source: 'live', updatedAt: '2026-11-29T00:00:00.000Z' }],
};

describe('the window replicas exchange through Redis', () => {
  it('reads back what it made, every row in order (strings with quotes and line breaks included)', async () => {
    const gz = await encodeWindow(window);
    expect(await decodeWindow(gz)).toEqual(window);
    // One line for the window without its rows, then one a row.
    expect(gunzipSync(gz).toString().split('\n')).toHaveLength(1 + window.days.length);
  });

  it('reads a window a replica of the previous version shared: one JSON document', async () => {
    expect(await decodeWindow(gzipSync(JSON.stringify(window)))).toEqual(window);
  });

  it('a value that unpacks to more than a window can be is refused, not unpacked (a gzip bomb kills a replica)', async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_WINDOW_BYTES + 1, '\n'));
    expect(bomb.length).toBeLessThan(MAX_WINDOW_BYTES / 500);
    await expect(decodeWindow(bomb)).rejects.toThrow(`the published window unpacks to over ${MAX_WINDOW_BYTES} bytes`);
  });

  it('a value of more rows than a window can have is refused before its rows are parsed, and so is a row that is not one of its fields', async () => {
    const { days: _days, ...head } = window;
    const lines = `${JSON.stringify(head)}${'\n[]'.repeat(MAX_WINDOW_ROWS + 1)}`;
    await expect(decodeWindow(gzipSync(lines))).rejects.toThrow(`the published window has over ${MAX_WINDOW_ROWS} rows`);
    await expect(decodeWindow(gzipSync(`${JSON.stringify(head)}\n["a","b","c","d"]\n[]`))).rejects.toThrow(
      'row 2 of the published window does not have its 4 fields',
    );
  });

  it('an empty window: no rows', async () => {
    const empty = { ...window, days: [] };
    expect(await decodeWindow(await encodeWindow(empty))).toEqual(empty);
  });
});
