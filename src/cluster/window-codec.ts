import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { nextTurn } from '../lib/turn.js';
import type { PublishedWindow } from './window-store.js';

/** Rows made or read in one turn of the event loop (a window has some 16,000). */
const ROWS_PER_TURN = 1000;
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
  const lines = (await gunzipAsync(gz)).toString('utf8').split('\n');
  const head = JSON.parse(lines[0]!) as PublishedWindow;
  if (lines.length === 1 && Array.isArray(head.days)) return head;
  const days: unknown[][] = [];
  for (let i = 1; i < lines.length; i += ROWS_PER_TURN) {
    if (i > 1) await nextTurn();
    for (const line of lines.slice(i, i + ROWS_PER_TURN)) days.push(JSON.parse(line) as unknown[]);
  }
  return { ...head, days };
}
