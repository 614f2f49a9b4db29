import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { nextTurn } from '../lib/turn.js';
import type { PublishedWindow } from './window-store.js';

/** Rows made or read in one turn of the event loop (a window has some 16,000). */
const ROWS_PER_TURN = 1000;
/**
 * The largest window read, unpacked, and its most rows: 241 resorts make under 3 MB and 17,000
 * rows, 4,673 imported ones about 20 times that. A value in Redis past either is refused before
 * it is parsed (a few hundred KB of gzip can unpack to gigabytes, or to millions of rows).
 */
export const MAX_WINDOW_BYTES = 128 * 1024 * 1024;
export const MAX_WINDOW_ROWS = 1_000_000;
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * A window as replicas exchange it through Redis: gzipped lines, the window without its rows
 * first, then one row a line. Made and read a slice of rows per turn, compressed on libuv's
 * threads: a replica publishing or applying one answers requests meanwhile (as one JSON document
 * compressed in place, the window held the loop for a quarter of a second and more).
 */
export async function encodeWindow(window: PublishedWindow): Promise<Buffer> {
  const { days, ...head } = window;
  const lines = [JSON.stringify(head)];
  for (let i = 0; i < days.length; i += ROWS_PER_TURN) {
    if (i > 0) await nextTurn();
    for (const row of days.slice(i, i + ROWS_PER_TURN)) lines.push(JSON.stringify(row));
  }
  return gzipAsync(lines.join('\n'));
}

/** The window `encodeWindow` made; also one a replica of the previous version shared (one JSON document, on one line). */
export async function decodeWindow(gz: Buffer): Promise<PublishedWindow> {
  const text = await gunzipAsync(gz, { maxOutputLength: MAX_WINDOW_BYTES }).catch((err: Error) => {
    throw new Error(err instanceof RangeError ? `the published window unpacks to over ${MAX_WINDOW_BYTES} bytes` : err.message);
  });
  let rows = 0;
  for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1))
    if (++rows > MAX_WINDOW_ROWS) throw new Error(`the published window has over ${MAX_WINDOW_ROWS} rows`);
  const lines = text.toString('utf8').split('\n');
  const head = JSON.parse(lines[0]!) as PublishedWindow;
  if (lines.length === 1 && Array.isArray(head.days)) return head;
  if (!Array.isArray(head.fields)) throw new Error('the published window names no fields');
  const days: unknown[][] = [];
  for (let i = 1; i < lines.length; i += ROWS_PER_TURN) {
    if (i > 1) await nextTurn();
    for (const line of lines.slice(i, i + ROWS_PER_TURN)) {
      const row = JSON.parse(line) as unknown;
      if (!Array.isArray(row) || row.length !== head.fields.length)
        throw new Error(`row ${days.length + 1} of the published window does not have its ${head.fields.length} fields`);
      days.push(row);
    }
  }
  return { ...head, days };
}
