import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { nextTurn } from '../lib/turn.js';
import type { PublishedWindow } from './window-store.js';

/** Rows made or read in one turn of the event loop (a window has some 16,000). */
const ROWS_PER_TURN = 1000;
/**
 * The largest window read, unpacked (one of 241 resorts is under 3 MB): a value in Redis that
 * unpacks to more is refused, not read (a few hundred KB of gzip can unpack to gigabytes).
 */
export const MAX_WINDOW_BYTES = 64 * 1024 * 1024;
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
  const lines = text.toString('utf8').split('\n');
  const head = JSON.parse(lines[0]!) as PublishedWindow;
  if (lines.length === 1 && Array.isArray(head.days)) return head;
  const days: unknown[][] = [];
  for (let i = 1; i < lines.length; i += ROWS_PER_TURN) {
    if (i > 1) await nextTurn();
    for (const line of lines.slice(i, i + ROWS_PER_TURN)) days.push(JSON.parse(line) as unknown[]);
  }
  return { ...head, days };
}
