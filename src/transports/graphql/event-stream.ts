import type { Socket } from 'node:net';
import type { Exchange } from '../../http/exchange.js';
import { CACHE_NONE } from '../../http/headers.js';
import type { Problem } from '../../lib/errors.js';
import { pullWhileTurnLasts } from '../../lib/turn.js';
import { partFrame } from './part-json.js';

export type StreamFormat = 'sse' | 'multipart';

/** What a client reads: its preferred form for one result, and the stream it can read if any. */
export interface Wanted {
  single: 'json' | StreamFormat;
  stream: StreamFormat | null;
}

const JSON_ONLY: Wanted = { single: 'json', stream: null };

const FORMAT_OF: Record<string, 'json' | StreamFormat> = {
  'application/graphql-response+json': 'json',
  'application/json': 'json',
  'application/*': 'json',
  '*/*': 'json',
  'text/event-stream': 'sse',
  'multipart/mixed': 'multipart',
};

const NAMES_A_STREAM = /text\/event-stream|multipart\/mixed/i;

/**
 * The client's Accept header, ranked by q-value then order (as a client lists its preferences):
 * the form it prefers for one result, and the first stream it reads, SSE (text/event-stream,
 * graphql-sse's "distinct connections" format) or multipart/mixed (the incremental delivery
 * format Apollo Client and urql read), for subscriptions and @defer / @stream. A media type's
 * parameters (Apollo's `deferSpec`) do not matter. Most requests name no stream: JSON at once.
 */
export function negotiate(accept: string | undefined): Wanted {
  // Media types are case-insensitive (RFC 9110): so is the quick look for a stream's.
  if (!accept || !NAMES_A_STREAM.test(accept)) return JSON_ONLY;
  const ranked = accept
    .split(',')
    .map((entry) => {
      const [type, ...params] = entry.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { format: FORMAT_OF[type!.trim().toLowerCase()], q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((x) => x.format !== undefined && x.q > 0)
    // Sorting is stable: at equal q, the order the client listed.
    .sort((a, b) => b.q - a.q);
  let single: Wanted['single'] | null = null;
  let stream: StreamFormat | null = null;
  for (const { format } of ranked) {
    single ??= format!;
    if (format !== 'json') stream ??= format!;
  }
  return { single: single ?? 'json', stream };
}

/** A frame as the HTTP/1.1 chunk Node would make of it (its length in hex, the frame, a line end). */
const chunk = (frame: string) => `${Buffer.byteLength(frame).toString(16)}\r\n${frame}\r\n`;
const ssePart = (json: string) => `event: next\ndata: ${json}\n\n`;

const multipartPart = (json: string) => `\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}\r\n---`;

const FORMATS = {
  sse: {
    contentType: 'text/event-stream; charset=utf-8',
    // A comment first: some clients wait for a first byte before they call the stream open.
    open: ':\n\n',
    part: ssePart,
    chunkedPart: (json: string) => chunk(ssePart(json)),
    close: 'event: complete\ndata:\n\n',
    heartbeat: ':\n\n',
    frames: new WeakMap<object, Buffer>(),
    chunks: new WeakMap<object, Buffer>(),
  },
  multipart: {
    contentType: 'multipart/mixed; boundary="-"',
    open: '\r\n---',
    part: multipartPart,
    close: '--\r\n',
    // An empty part, as Apollo's multipart subscription protocol sends (its client skips it).
    heartbeat: multipartPart('{}'),
    chunkedPart: (json: string) => chunk(multipartPart(json)),
    frames: new WeakMap<object, Buffer>(),
    chunks: new WeakMap<object, Buffer>(),
  },
} as const;

const uncork = (socket: Socket) => socket.uncork();

export interface StreamOptions {
  /**
   * A stream writes a heartbeat this often (SSE a comment; multipart, for subscriptions only, an
   * empty part), so that no proxy takes it for idle.
   */
  heartbeatMs: number;
  /** Whether the stream is a subscription's (an incremental answer's parts follow in moments). */
  subscription?: boolean;
  /** What a part that could not be made is answered with (the error is logged by the caller). */
  onError: (err: unknown) => unknown;
  /** Resolves when the stream must end early and tell the client why (its key revoked, its quota used up). */
  ended?: Promise<Problem>;
}

/** The last part of a stream ended for a reason: an error naming it, as the pipeline's refusals are. */
export const endingPart = (reason: Problem) => ({ errors: [{ message: reason.detail, extensions: { code: reason.code } }] });

/**
 * Writes a stream of results as SSE or multipart/mixed: each part as it comes, waiting while the
 * client does not read (the parts are pulled only as fast as they are taken, so a slow reader
 * holds nothing but its own place in the source), and stopping the source when the client goes.
 * A pump of callbacks, not a loop of awaits: it runs for every subscriber of every live update,
 * and each promise it made would be made again each time.
 */
export function writeStream(ex: Exchange, format: StreamFormat, parts: AsyncIterable<unknown>, options: StreamOptions): Promise<void> {
  const f = FORMATS[format];
  const res = ex.res;
  const iterator = parts[Symbol.asyncIterator]();
  ex.writeStreamHead(f.contentType, ['cache-control', CACHE_NONE, 'connection', 'keep-alive', 'x-accel-buffering', 'no']);
  res.write(f.open);
  const beats = format === 'sse' || options.subscription;
  const heartbeat = beats ? setInterval(() => res.writableLength === 0 && res.write(f.heartbeat), options.heartbeatMs).unref() : null;
  // A part goes to the socket as the bytes made once for all who get it, framed as the HTTP/1.1
  // chunk Node would make of it: Node's write framed and buffered each part of each subscriber
  // again (four writes of a chunk, its length in hex), the most of a live update's cost after GC.
  const socket = res.socket;
  const [frames, frame] = res.chunkedEncoding ? [f.chunks, f.chunkedPart] : [f.frames, f.part];
  return new Promise<void>((resolve) => {
    let over = false;
    /** Ends the stream: with a last part, closing it (`last` '' for none), or without a word when the client went away. */
    const finish = (last?: string) => {
      if (over) return;
      over = true;
      if (heartbeat) clearInterval(heartbeat);
      socket?.off('drain', pullLater);
      if (last !== undefined && !res.destroyed) {
        if (last) res.write(last);
        res.end(f.close);
      }
      void iterator.return?.();
      resolve();
    };
    const failed = (err: unknown) => finish(f.part(JSON.stringify(options.onError(err))));
    const pullFailed = (err: unknown) => !over && failed(err);
    const written = (r: IteratorResult<unknown>) => {
      if (over) return;
      if (r.done) return finish('');
      if (!socket || socket.destroyed) return finish();
      try {
        // Corked to the end of the tick, as Node corks a response's writes: a subscriber's updates leave in one write.
        if (socket.writableCorked === 0) {
          socket.cork();
          process.nextTick(uncork, socket);
        }
        if (socket.write(partFrame(r.value as object, frames, frame))) pullWhileTurnLasts(pull);
        else socket.once('drain', pullLater);
      } catch (err) {
        failed(err);
      }
    };
    // A socket drained releases its stream's next part, within the turn's budget.
    const pullLater = () => pullWhileTurnLasts(pull);
    function pull(): void {
      if (over) return;
      try {
        iterator.next().then(written, pullFailed);
      } catch (err) {
        failed(err);
      }
    }
    res.once('close', () => finish());
    // Ended early for a reason (its key revoked, its quota used up): a last part names it.
    void options.ended?.then((reason) => finish(f.part(JSON.stringify(endingPart(reason)))));
    pull();
  });
}
