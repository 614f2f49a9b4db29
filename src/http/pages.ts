import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Exchange } from './exchange.js';
import { API_HEADERS, PAGE_HEADERS } from './headers.js';
import { sendProblem } from './problem.js';
import { StaticAsset } from './static-asset.js';
import { renderGraphiQLPage } from './graphiql-page.js';
import { PROJECT_ROOT } from '../paths.js';

/** Page loads per client address per minute, for what is served without a key. */
export const PAGE_LOADS_PER_MINUTE = 60;

const INDEX_LINKS = [
  ['/graphql', 'GraphQL (GraphiQL in a browser)'],
  ['/docs', 'REST API reference'],
  ['/openapi.json', 'OpenAPI 3.1 document'],
  ['/readyz', 'Readiness probe'],
] as const;

const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ski-zip-gateway</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style></head>
<body><h1>ski-zip-gateway</h1>
<p>US ZIP codes and ski resort conditions, over REST and GraphQL. Every API request needs a key in the
<code>x-api-key</code> header: the server's first start printed one, or run <code>npm run keys -- create --name me</code>.</p>
<ul>${INDEX_LINKS.map(([href, text]) => `<li><a href="${href}">${text}</a> <code>${href}</code></li>`).join('')}</ul>
</body></html>
`;

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ski-zip-gateway · API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><div id="app"></div>
<script src="/docs/scalar.js"></script>
<script>
  Scalar.createApiReference('#app', {
    url: '/openapi.json',
    withDefaultFonts: false,
    hideClientButton: false,
    authentication: { preferredSecurityScheme: 'ApiKey' },
  });
</script>
</body></html>
`;

/**
 * What is served without a key: the index at /, GraphiQL, the API reference (Scalar, from its
 * npm package: no CDN) and the OpenAPI document. Large pages are compressed and revalidated by
 * ETag, and every one of them is limited per client address, so nobody can pull them in a loop.
 */
export function createPages(openApi: () => object) {
  const perAddress = new RateLimiterMemory({ points: PAGE_LOADS_PER_MINUTE, duration: 60, keyPrefix: 'page' });
  const html = 'text/html; charset=utf-8';
  const assets = new Map<string, { asset: StaticAsset; headers: readonly string[] }>([
    ['/graphql', { asset: new StaticAsset(html, renderGraphiQLPage), headers: PAGE_HEADERS }],
    ['/docs', { asset: new StaticAsset(html, () => DOCS_HTML), headers: PAGE_HEADERS }],
    ['/docs/scalar.js', { asset: new StaticAsset('text/javascript; charset=utf-8', scalarBundle), headers: PAGE_HEADERS }],
    ['/openapi.json', { asset: new StaticAsset('application/json; charset=utf-8', () => JSON.stringify(openApi(), null, 2)), headers: API_HEADERS }],
    ['/', { asset: new StaticAsset(html, () => INDEX_HTML), headers: PAGE_HEADERS }],
    ['/index.json', { asset: new StaticAsset('application/json; charset=utf-8', () => JSON.stringify({ service: 'ski-zip-gateway', links: Object.fromEntries(INDEX_LINKS.map(([href, text]) => [text, href])) })), headers: API_HEADERS }],
  ]);

  /** The page for this request, if it is one: GraphiQL only for browsers, / as HTML or JSON. */
  function pageOf(ex: Exchange): string | null {
    const method = ex.req.method;
    if (method !== 'GET' && method !== 'HEAD') return null;
    const wantsHtml = (ex.req.headers.accept ?? '').includes('text/html');
    if (ex.path === '/graphql') return wantsHtml ? '/graphql' : null;
    if (ex.path === '/') return wantsHtml ? '/' : '/index.json';
    return assets.has(ex.path) ? ex.path : null;
  }

  return {
    pageOf,
    async serve(ex: Exchange, page: string): Promise<void> {
      const { asset, headers } = assets.get(page)!;
      ex.baseHeaders = headers;
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
    },
  };
}

/** Scalar's prebuilt browser bundle, from its npm package (its exports do not name the file). */
function scalarBundle(): Promise<Buffer> {
  return readFile(path.join(PROJECT_ROOT, 'node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js'));
}
