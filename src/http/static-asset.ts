import type { Exchange } from './exchange.js';
import { Representations } from './compression.js';

/**
 * A page or file served as it is (GraphiQL, the docs, the index): made once on first use,
 * compressed once with brotli and gzip (off the event loop, in zlib's threads) when it is large
 * enough, and sent with an ETag per representation so a browser that has it gets a 304.
 * `cacheControl`: `no-cache` (revalidate every time) for pages whose address stays the same;
 * assets whose address carries their hash are kept for a year (`immutable`).
 */
export class StaticAsset {
  private made: Promise<Representations> | null = null;

  constructor(
    readonly contentType: string,
    private readonly make: () => Promise<string | Buffer> | string | Buffer,
    private readonly cacheControl = 'no-cache',
  ) {}

  /** The body and its representations, made (and compressed) on first use. */
  load(): Promise<Representations> {
    this.made ??= (async () => {
      const body = await this.make();
      const rep = new Representations(body);
      if (rep.compressible) await Promise.all([rep.in('br', 'asset'), rep.in('gzip', 'asset')]);
      return rep;
    })();
    this.made.catch(() => (this.made = null));
    return this.made;
  }

  /** Answers with the best encoding the client accepts, or 304 when it has this version. */
  async serve(ex: Exchange): Promise<void> {
    await ex.sendRepresentation(this.contentType, await this.load(), ['cache-control', this.cacheControl], 'asset');
  }
}
