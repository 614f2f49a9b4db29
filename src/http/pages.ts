import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Exchange } from './exchange.js';
import { PAGE_HEADERS } from './headers.js';
import { sendProblem } from './problem.js';
import { StaticAsset } from './static-asset.js';
import { renderGraphiQLPage } from './graphiql-page.js';

/** Page loads per client address per minute, for the pages served without a key. */
export const PAGE_LOADS_PER_MINUTE = 60;

/**
 * The pages a browser loads without a key (GraphiQL). They are large, so they are compressed,
 * revalidated by ETag, and limited per client address: nobody can pull them in a loop.
 */
export function createPages() {
  const perAddress = new RateLimiterMemory({ points: PAGE_LOADS_PER_MINUTE, duration: 60, keyPrefix: 'page' });
  const graphiql = new StaticAsset('text/html; charset=utf-8', renderGraphiQLPage);

  async function serve(ex: Exchange, asset: StaticAsset): Promise<void> {
    ex.baseHeaders = PAGE_HEADERS;
    try {
      await perAddress.consume(ex.req.socket.remoteAddress ?? 'unknown');
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      const retry = String(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
      return sendProblem(ex, {
        status: 429,
        code: 'RATE_LIMITED',
        detail: `At most ${PAGE_LOADS_PER_MINUTE} page loads a minute from one address without a key.`,
        headers: ['retry-after', retry],
      });
    }
    await asset.serve(ex);
  }

  return {
    /** GET /graphql from a browser (it accepts HTML). */
    isGraphiQL: (ex: Exchange) => ex.path === '/graphql' && (ex.req.method === 'GET' || ex.req.method === 'HEAD') && (ex.req.headers.accept ?? '').includes('text/html'),
    graphiql: (ex: Exchange) => serve(ex, graphiql),
  };
}
