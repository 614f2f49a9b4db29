import { hash } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import type * as Zlib from 'node:zlib';
import Negotiator from 'negotiator';
import pLimit from 'p-limit';
import type { IncomingMessage } from 'node:http';

/** The content codings the server writes besides the body as it is. */
export type Coding = 'br' | 'gzip';

/**
 * Bodies below this many bytes go out as they are: a ZIP record (about 230 bytes) compressed costs
 * more CPU than its saved bytes are worth, and a TCP segment carries it whole either way. Chosen
 * from `npm run bench` (BENCHMARKS.md, "Compression").
 */
export const COMPRESS_MIN_BYTES = 1400;

/**
 * How to compress each kind of content, measured on real answers (BENCHMARKS.md, design figures: compression).
 * JSON answers prefer gzip 6: as small as brotli 4 for our JSON at a fraction of its cost on small
 * bodies (brotli's setup dominates them), and brotli 6 would save little more (BENCHMARKS.md, design figures: compression). Static assets (GraphiQL's script, the docs' bundle) are compressed once per process, so they prefer brotli 6. The levels are fixed per
 * kind, so a representation is the same bytes whenever it is made (its ETag is strong).
 */
const LEVELS = {
  answer: { br: 4, gzip: 6, prefer: ['gzip', 'br', 'identity'] },
  asset: { br: 6, gzip: 9, prefer: ['br', 'gzip', 'identity'] },
} as const;

/**
 * Bodies up to this size are compressed on the event loop (quickly (BENCHMARKS.md, design figures: compression): a
 * hand-off to zlib's threads and back costs a turn of the event loop, which a cheap request
 * should not wait for behind heavy work. Larger ones are compressed in zlib's threads.
 */
const SYNC_MAX_BYTES = 32 * 1024;

export type Effort = keyof typeof LEVELS;

/**
 * node:zlib, loaded by the first compression rather than at start-up (a part of it in a CPU
 * profile of `node dist/server.js`, BENCHMARKS.md, design figures: start-up): the first requests a server answers, lookups, are too small
 * to compress.
 */
let zlibLoaded:
  | { zlib: typeof Zlib; brotli: (body: Buffer, opts: Zlib.BrotliOptions) => Promise<Buffer>; gzip: (body: Buffer, opts: Zlib.ZlibOptions) => Promise<Buffer> }
  | undefined;
function loadZlib() {
  if (!zlibLoaded) {
    const zlib = createRequire(import.meta.url)('node:zlib') as typeof Zlib;
    zlibLoaded = { zlib, brotli: promisify(zlib.brotliCompress), gzip: promisify(zlib.gzip) };
  }
  return zlibLoaded;
}

const options = ({ constants }: typeof Zlib, coding: Coding, level: number, size: number) =>
  coding === 'br'
    ? {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: level,
          [constants.BROTLI_PARAM_SIZE_HINT]: size,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      }
    : { level };

/**
 * The coding to answer with, as the client's Accept-Encoding allows (q-values, `*` and
 * `identity;q=0` included), in this effort's order of preference; null for the body as it is.
 */
export function codingFor(req: IncomingMessage, effort: Effort): Coding | null {
  const header = req.headers['accept-encoding'];
  if (!header) return null;
  const { prefer } = LEVELS[effort];
  // negotiator 1.x takes the server's order of preference for ties (its published types predate it).
  const negotiator = new Negotiator({ headers: { 'accept-encoding': header } }) as unknown as {
    encoding(available: string[], options: { preferred: string[] }): string | undefined;
  };
  const best = negotiator.encoding([...prefer], { preferred: [...prefer] });
  return best === 'br' || best === 'gzip' ? best : null;
}

/**
 * Large compressions in zlib's threads at most two at a time (this is a 2-core service): each
 * brotli encoder holds memory while it runs, and the first requests for a set of new large answers
 * (the state pages of the bench) started them all at once, for no gain in speed (BENCHMARKS.md, design figures: compression). The rest wait their turn (a kept answer's representation is made once), except
 * a one-off answer's (encodeOnce).
 */
const offLoop = pLimit(2);

/** Large compressions running in zlib's threads now, and waiting for a turn. */
export const offLoopCompressions = { running: () => offLoop.activeCount, waiting: () => offLoop.pendingCount };

/** Compresses a body: small ones at once, large ones in zlib's thread pool. */
export async function encode(body: Buffer, coding: Coding, effort: Effort): Promise<Buffer> {
  if (body.length <= SYNC_MAX_BYTES) return compressNow(body, coding, effort);
  const { zlib, brotli, gzip } = loadZlib();
  const opts = options(zlib, coding, LEVELS[effort][coding], body.length);
  return offLoop(() => (coding === 'br' ? brotli(body, opts) : gzip(body, opts)));
}

/** A compressing stream at this effort's level (a body written in chunks: a streamed list). */
export function compressingStream(coding: Coding, effort: Effort): Zlib.Gzip | Zlib.BrotliCompress {
  const { zlib } = loadZlib();
  const opts = options(zlib, coding, LEVELS[effort][coding], 0);
  return coding === 'br' ? zlib.createBrotliCompress(opts) : zlib.createGzip(opts);
}

/** Compresses on the event loop. */
function compressNow(body: Buffer, coding: Coding, effort: Effort): Buffer {
  const { zlib } = loadZlib();
  const opts = options(zlib, coding, LEVELS[effort][coding], body.length);
  return coding === 'br' ? zlib.brotliCompressSync(body, opts) : zlib.gzipSync(body, opts);
}

/**
 * A one-off body larger than this waits for a turn in zlib's threads when both are busy; up to it,
 * it is compressed on the event loop at once instead (less CPU than the hand-off). Waiting, its
 * uncompressed bytes were held: under a stream of large computed answers (the bench's 1,000-ZIP
 * GraphQL pages) several of them (BENCHMARKS.md, design figures: compression).
 */
const ONE_OFF_SYNC_MAX_BYTES = 512 * 1024;

/**
 * Compresses a body made for one answer only (not kept). Its bytes are handed to a new, young
 * ArrayBuffer once compressed: the Buffer zlib read from has lived through the compression and
 * sits in V8's old generation, which frees it only at a full collection; a young one goes at the
 * next scavenge. Under a stream of large computed answers the old ones added up (BENCHMARKS.md, design figures: compression).
 */
export function encodeOnce(body: string, coding: Coding, effort: Effort): Promise<Buffer> {
  const bytes = Buffer.from(body);
  // Small ones share Buffer's pool and are compressed at once (encode); so is a large one when
  // zlib's threads are taken and it is not too large to hold the event loop for.
  if (bytes.length > SYNC_MAX_BYTES && bytes.length <= ONE_OFF_SYNC_MAX_BYTES && offLoop.activeCount + offLoop.pendingCount >= offLoop.concurrency) {
    return new Promise((resolve) => resolve(compressNow(bytes, coding, effort)));
  }
  const made = encode(bytes, coding, effort);
  // Only a large body has an ArrayBuffer of its own (small ones share Buffer's pool), and only a
  // large one is compressed off the event loop; not an async function, which would hold `body`.
  if (body.length <= SYNC_MAX_BYTES) return made;
  const release = () => void structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  made.then(release, release);
  return made;
}

/**
 * A string's UTF-8 bytes in an ArrayBuffer of their own. Buffer.from puts anything under 4 KiB in a
 * slice of a shared 8 KiB pool, which a kept slice pins whole: the cache would count 2 KB and hold 8.
 */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/**
 * One answer in each representation it has been asked for: the body as it is, and br or gzip made
 * on first request and kept. Each representation has its own strong ETag (`"<hash>"`, `"<hash>.br"`,
 * `"<hash>.gz"`), as RFC 9110 wants of strong validators; a conditional request matches any of them,
 * since they are the same content.
 */
export class Representations {
  readonly etag: string;
  private readonly encoded: Partial<Record<Coding, Buffer | Promise<Buffer>>> = {};

  /**
   * The body as it goes out uncompressed. An answer sent once stays the string it was made as (Node
   * writes it with the headers in one go: no copy, no external allocation); a large one that is
   * kept is encoded once here, not on every send and every compression.
   */
  readonly body: string | Buffer;

  constructor(body: string | Buffer, kept = true) {
    this.body = kept && typeof body === 'string' && body.length >= COMPRESS_MIN_BYTES ? ownBytes(body) : body;
    this.etag = `"${hash('sha1', this.body, 'base64url')}"`;
  }

  /** Bytes held by the compressed representations made so far. */
  get encodedBytes(): number {
    let n = 0;
    for (const b of Object.values(this.encoded)) if (Buffer.isBuffer(b)) n += b.length;
    return n;
  }

  /** Whether this body is worth compressing at all. */
  get compressible(): boolean {
    return this.body.length >= COMPRESS_MIN_BYTES;
  }

  etagOf(coding: Coding | null): string {
    return coding === null ? this.etag : `${this.etag.slice(0, -1)}.${coding === 'br' ? 'br' : 'gz'}"`;
  }

  /** Whether If-None-Match names this answer, in any representation (weak comparison, lists, `*`). */
  matches(header: string | undefined): boolean {
    if (!header) return false;
    if (header.trim() === '*') return true;
    const base = this.etag.slice(1, -1);
    for (const part of header.split(',')) {
      const tag = part.trim().replace(/^W\//, '');
      if (tag === this.etag || tag === `"${base}.br"` || tag === `"${base}.gz"`) return true;
    }
    return false;
  }

  /** The body in this coding, compressed on first use and kept. */
  async in(coding: Coding, effort: Effort): Promise<Buffer> {
    const have = this.encoded[coding];
    if (have) return have;
    const made = encode(Buffer.isBuffer(this.body) ? this.body : Buffer.from(this.body), coding, effort);
    this.encoded[coding] = made;
    try {
      return (this.encoded[coding] = await made);
    } catch (err) {
      delete this.encoded[coding];
      throw err;
    }
  }
}
