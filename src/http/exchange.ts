import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_HEADERS } from './headers.js';
import { endSoon } from '../lib/turn.js';
import type { RequestSpan } from '../telemetry/trace.js';
import type { ProviderCalls } from '../lib/provider-calls.js';
import { codingFor, COMPRESS_MIN_BYTES, encodeOnce, type Effort, type Representations } from './compression.js';

const VARY = ['vary', 'accept-encoding'] as const;
const NO_HEADERS: readonly string[] = [];
/**
 * From this length a string body is written beside its head, not joined to it (see send). Below
 * it nothing measurable is saved (a nearby answer cost the same either way).
 */
const SEPARATE_HEAD_CHARS = 64 * 1024;

/**
 * One request and its response as the dispatcher hands it on: the path without the /v1 prefix
 * and the query, and the headers gathered on the way (rate limits, CORS) that the answer adds to
 * its own in one writeHead.
 */
export class Exchange {
  /** Extra response headers, flat [name, value, …]. */
  headers: string[] = [];
  /** Set by the key check: whose request this is (null with AUTH=off). */
  keyId: number | null = null;
  /** The key's per-second rate (its plan), which sizes its cost budget. */
  keyRate = 0;
  /** The key's own cap on open streams, or null for the server's default. */
  keyStreams: number | null = null;
  /** The key's scopes; everything with AUTH=off (local development). */
  scopes = '';
  /** What the request cost (GraphQL complexity units), for the log and the cost budget. */
  cost = 0;
  /** The request's span, when tracing is on. */
  trace: RequestSpan | null = null;
  /** When the request's deadline passes (set by Deadlines). */
  due = 0;
  /** Its place in Deadlines' list while it is watched. */
  slot = -1;
  /** When it arrived (performance.now()), for the latency metric. */
  readonly start = performance.now();
  /** The route template it matched, for metrics ('unmatched' until something claims it). */
  route = 'unmatched';
  /** Set when the answer is delivered in parts (@defer, @stream): the deadline still cuts it once it has started. */
  incremental = false;
  /** Its provider calls, made when its work first calls a provider (the context's). */
  providers?: ProviderCalls;
  /** What to do when the deadline passes (the dispatcher's answer: abort and 503). */
  onTimeOut: (ex: Exchange) => void = expireOnly;
  private controller?: AbortController;
  private expired = false;
  /** send or sendEmpty has handed the body to endSoon (or ended it). */
  private ending = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    /** Path without /v1 and without the query string. */
    readonly path: string,
    /** What follows `?`, or ''. */
    readonly query: string,
    /** The security headers for this kind of answer. */
    public baseHeaders: readonly string[] = API_HEADERS,
  ) {}

  /** The URL as the client sent it: `instance` in problem bodies. */
  get url(): string {
    return this.req.url ?? this.path;
  }

  /**
   * Aborted when the deadline passes or the client goes away. Made on first use: most requests
   * finish long before anyone needs to cancel them.
   */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.expired) this.controller.abort();
      else this.res.once('close', () => this.res.writableFinished || this.controller!.abort());
    }
    return this.controller.signal;
  }

  /** Replaces the gathered headers of these names (a cost 429 carries its own RateLimit headers). */
  replaceHeaders(pairs: readonly string[]): void {
    const names = new Set(pairs.filter((_, i) => i % 2 === 0));
    const kept: string[] = [];
    for (let i = 0; i < this.headers.length; i += 2) if (!names.has(this.headers[i]!)) kept.push(this.headers[i]!, this.headers[i + 1]!);
    this.headers = kept.concat(pairs);
  }

  /** Called by Deadlines when the deadline has passed. */
  timeOut(): void {
    this.onTimeOut(this);
  }

  /** The deadline passed: stop what was started for this request. */
  expire(): void {
    this.expired = true;
    this.controller?.abort();
  }

  get timedOut(): boolean {
    return this.expired;
  }

  /** Whether an answer has gone out (or started to): a late result must then be dropped. */
  get answered(): boolean {
    return this.res.headersSent;
  }

  /** Writes the whole answer: base headers, gathered headers, these, and the body. */
  send(status: number, contentType: string, body: string | Buffer, headers: readonly string[] = []): void {
    if (this.res.headersSent) return;
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    this.res.writeHead(
      status,
      this.baseHeaders.concat('x-request-id', this.requestId, this.headers, headers, 'content-type', contentType, 'content-length', String(length)),
    );
    this.ending = true;
    if (typeof body === 'string' && body.length >= SEPARATE_HEAD_CHARS && this.res.socket) {
      // Node prepends the head to a string body, and the joined string is copied whole before it
      // is written (for a 1,000-ZIP page, a copy in V8's large-object space per answer). Corked,
      // head and body go out in one writev instead, the body not copied on the heap; its end
      // uncorks at once (Node's end() does), so it is not left for the end of the turn.
      this.res.socket.cork();
      this.res.flushHeaders();
      this.res.end(body);
    } else endSoon(this.res, body);
  }

  /**
   * The head of an answer whose body follows in pieces (a stream, a streamed list): base headers,
   * gathered headers, these and the content type, without a length.
   */
  writeStreamHead(contentType: string, headers: readonly string[]): void {
    this.res.writeHead(200, this.baseHeaders.concat('x-request-id', this.requestId, this.headers, 'content-type', contentType, headers));
    // Node keeps the head it made (`_header`) as long as the response lives: a rope of a piece per
    // header, several times its length in the heap. A stream lives for hours, and thousands of them
    // at once: each keeps one flat copy instead.
    const res = this.res as ServerResponse & { _header?: unknown };
    if (typeof res._header === 'string') res._header = Buffer.from(res._header, 'latin1').toString('latin1');
  }

  /**
   * A body computed for this request (a /graphql answer, a sync status): compressed, off the event
   * loop, when it is large enough to be worth it and the client accepts br or gzip.
   */
  sendCompressible(status: number, contentType: string, body: string, headers: readonly string[] = []): Promise<void> | void {
    if (body.length < COMPRESS_MIN_BYTES) return this.send(status, contentType, body, headers);
    const coding = codingFor(this.req, 'answer');
    if (!coding) return this.send(status, contentType, body, [...headers, ...VARY]);
    // Not an async function: its frame would hold the body (a large string) until the compressed
    // one is sent, long enough for V8 to move it to the old generation, where only a full
    // collection frees it.
    return encodeOnce(body, coding, 'answer').then((encoded) => this.send(status, contentType, encoded, [...headers, ...VARY, 'content-encoding', coding]));
  }

  /**
   * A kept answer (the response cache, a page): 304 when the client has it in any representation,
   * else the representation its Accept-Encoding asks for, each with its own ETag, compressed once.
   */
  sendRepresentation(contentType: string, rep: Representations, headers: readonly string[] = [], effort: Effort = 'answer'): Promise<void> | void {
    const coding = rep.compressible ? codingFor(this.req, effort) : null;
    const vary = rep.compressible ? VARY : NO_HEADERS;
    const etag = rep.etagOf(coding);
    if (rep.matches(this.req.headers['if-none-match'])) return this.sendEmpty(304, ['etag', etag, ...vary, ...headers]);
    // Most answers go out as they are, at once: no promise, no turn of the event loop.
    if (!coding) return this.send(200, contentType, rep.body, ['etag', etag, ...vary, ...headers]);
    return rep.in(coding, effort).then((body) => this.send(200, contentType, body, ['etag', etag, ...vary, 'content-encoding', coding, ...headers]));
  }

  /** An answer without a body (204, 304). */
  sendEmpty(status: number, headers: readonly string[] = []): void {
    if (this.res.headersSent) return;
    this.res.writeHead(status, this.baseHeaders.concat('x-request-id', this.requestId, this.headers, headers));
    this.ending = true;
    endSoon(this.res);
  }

  /** Ends an answer a handler started writing itself, unless its end is already on the way. */
  endStarted(): void {
    if (!this.ending) this.res.end();
  }

  /** For handlers that write through the Node response themselves (Yoga): the same headers, set ahead. */
  applyHeaders(cacheControl: string): void {
    const all = [...this.baseHeaders, 'x-request-id', this.requestId, 'cache-control', cacheControl, ...this.headers];
    for (let i = 0; i < all.length; i += 2) this.res.setHeader(all[i]!, all[i + 1]!);
  }
}

const expireOnly = (ex: Exchange) => ex.expire();
