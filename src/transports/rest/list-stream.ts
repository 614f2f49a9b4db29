import { createHash } from 'node:crypto';
import type { Exchange } from '../../http/exchange.js';
import { codingFor, compressingStream, type Coding } from '../../http/compression.js';
import { type Column, csvHeader, csvRows, LIST_MEDIA_TYPES, type ListFormat, ndjsonRows } from './list-formats.js';

/** Rows per chunk: a chunk of a 1,000-ZIP page is 20–45 KB, a string the young generation holds. */
const ROWS_PER_CHUNK = 200;

/**
 * A list's CSV or NDJSON form, streamed: the rows are written a chunk at a time (compressed on the
 * way when the client accepts br or gzip), never built into one string: a string past 128 KiB
 * goes to V8's large-object space, freed only by a full collection. Without compression every
 * chunk is written in the same turn, corked into one write: the page's records are in memory
 * already and its text is smaller than they are, so waiting for the client between chunks only
 * kept the records (and this request's state) alive across turns, long enough to be moved to the
 * old generation. A compressor is waited for (its input is buffered until it has caught up).
 * Its ETag is made from what the answer is a function of — the route, its parameters, the form
 * and the data version — so a conditional request is answered 304 before anything runs, and the
 * same request on the same data has the same tag (the bytes are the same: fixed compression levels).
 */
export class ListForm {
  readonly etag: string;

  constructor(
    readonly format: Exclude<ListFormat, 'json'>,
    key: string,
  ) {
    // SHA-1's 20 bytes are 27 characters of base64url.
    this.etag = `"${createHash('sha1').update(key).digest('base64url')}.${format}"`;
  }

  /** Whether If-None-Match names this form, in any coding (weak comparison, lists, `*`; node has trimmed the value). */
  matches(header: string | undefined): boolean {
    if (!header) return false;
    if (header === '*') return true;
    const base = this.etag.slice(1, -1);
    return header.split(',').some((part) => {
      const tag = part.trim().replace(/^W\//, '');
      return tag === this.etag || tag === `"${base}.br"` || tag === `"${base}.gz"`;
    });
  }

  etagOf(coding: Coding | null): string {
    return coding === null ? this.etag : `${this.etag.slice(0, -1)}.${coding === 'br' ? 'br' : 'gz'}"`;
  }

  /** 304 when the client has it (no items: the caller has asked `matches` first); else the rows, streamed. */
  async send(ex: Exchange, items: readonly unknown[] | null, columns: readonly Column[], headers: readonly string[]): Promise<void> {
    const coding = codingFor(ex.req, 'answer');
    const common = ['etag', this.etagOf(coding), 'vary', 'accept, accept-encoding', ...headers];
    if (items === null) return ex.sendEmpty(304, common);
    const res = ex.res;
    ex.writeStreamHead(LIST_MEDIA_TYPES[this.format], [...common, ...(coding ? ['content-encoding', coding] : [])]);
    if (ex.req.method === 'HEAD') return void res.end();
    // The levels kept answers are compressed at: the same request makes the same bytes.
    const out = coding ? compressingStream(coding, 'answer') : null;
    out?.pipe(res);
    const sink = out ?? res;
    // Only a compressor is waited for; a client that leaves meanwhile ends the wait.
    const closed = out ? new Promise<void>((resolve) => res.once('close', resolve)) : null;
    if (!out) res.cork();
    if (this.format === 'csv') sink.write(csvHeader(columns));
    for (let i = 0; i < items.length; i += ROWS_PER_CHUNK) {
      const chunk = this.format === 'csv' ? csvRows(items, columns, i, i + ROWS_PER_CHUNK) : ndjsonRows(items, i, i + ROWS_PER_CHUNK);
      if (!sink.write(chunk) && closed !== null) await Promise.race([new Promise((resolve) => sink.once('drain', resolve)), closed]);
      if (res.destroyed) return;
    }
    sink.end();
  }
}
