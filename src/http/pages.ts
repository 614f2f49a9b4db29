import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RateLimiterRes } from '../lib/rate-limiter.js';
import { WindowLimiter } from '../lib/window-limiter.js';
import type { Exchange } from './exchange.js';
import { API_HEADERS, PAGE_HEADERS } from './headers.js';
import { sendProblem } from './problem.js';
import { StaticAsset } from './static-asset.js';
import { renderGraphiQLParts, type GraphiQLParts } from './graphiql-page.js';
import { PROJECT_ROOT } from '../lib/paths.js';
import { BROWSER_KEY_STORE } from './browser-key.js';

/** Page loads per client address per minute, for what is served without a key. */
export const PAGE_LOADS_PER_MINUTE = 60;

const INDEX_LINKS = [
  ['/graphql', 'GraphQL (GraphiQL in a browser)'],
  ['/docs', 'REST API reference'],
  ['/openapi.json', 'OpenAPI 3.1 document'],
  ['/schema.graphql', "GraphQL schema (SDL, with each field's @cost)"],
  ['/readyz', 'Readiness probe'],
] as const;

/** How keys work on this server, as the pages tell it (HTML): true in each way it can be started. */
export interface KeyModes {
  /** AUTH=off: keys are not checked. */
  auth: boolean;
  /** Keys set by the operator in API_KEYS (then no first key is made). */
  apiKeys: readonly string[];
}

export function keyHint({ auth, apiKeys }: KeyModes): string {
  if (!auth) return 'This server runs with <code>AUTH=off</code> (local development): keys are not checked.';
  const more = 'run <code>npm run keys -- create --name me</code> where the server runs';
  if (apiKeys.length > 0) return `This server's keys are set by its operator (<code>API_KEYS</code>): ask them for one, or ${more}.`;
  return `The first time the server started it printed a first key on its terminal (stderr) and wrote it to first-api-key.txt beside its database; or ${more}.`;
}

const indexHtml = (modes: KeyModes) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>ski-zip-gateway</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em;overflow-wrap:anywhere}</style></head>
<body><h1>ski-zip-gateway</h1>
<p>US ZIP codes and ski resort conditions, over REST and GraphQL. Every API request needs a key in the
<code>x-api-key</code> header. <span data-keys>${keyHint(modes)}</span></p>
<ul>${INDEX_LINKS.map(([href, text]) => `<li><a href="${href}">${text}</a> <code>${href}</code></li>`).join('')}</ul>
</body></html>
`;

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ski-zip-gateway · API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="/favicon.svg" type="image/svg+xml"></head>
<body><div id="app"></div>
<script src="/docs/scalar.js"></script>
<script>
  // The key GraphiQL keeps in this browser, if any: the reference starts with it (a key typed here
  // and kept by Scalar comes first), so "Test Request" is not a 401 until a key is typed again.
  var stored = null;
  try { stored = localStorage.getItem(${JSON.stringify(BROWSER_KEY_STORE)}); } catch (e) {}
  Scalar.createApiReference('#app', {
    url: '/openapi.json',
    withDefaultFonts: false,
    hideClientButton: false,
    authentication: { preferredSecurityScheme: 'ApiKey', securitySchemes: stored ? { ApiKey: { value: stored } } : {} },
    // The key typed into the reference stays in this browser across reloads.
    persistAuth: true,
    // Nothing leaves the server: no AI agent (it calls Scalar's registry through their proxy), no
    // telemetry, no toolbar with share and deploy buttons that cannot work on a self-hosted copy.
    agent: { disabled: true },
    telemetry: false,
    showDeveloperTools: 'never',
  });
</script>
</body></html>
`;

/** A mountain, as every page's icon (and /favicon.ico, which browsers ask for by themselves). */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#0b1220"/><path d="M6 52 26 18l10 16 6-8 16 26z" fill="#e6edf3"/><path d="m26 18-6 10 6-3 4 4z" fill="#9ecbff"/></svg>`;

/** Files whose address carries their hash: a browser keeps them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * What is served without a key: the index at /, GraphiQL (a small page, its script and styles as
 * long-cached files), the API reference (Scalar, from its npm package: no CDN), the OpenAPI
 * document and the icon. Large files are compressed and revalidated by ETag, and every one of them
 * is limited per client address, so nobody can pull them in a loop.
 */
export function createPages(openApi: () => object, keyModes: KeyModes, now: () => number) {
  // Per minute of the server's clock.
  const perAddress = new WindowLimiter(PAGE_LOADS_PER_MINUTE, 60, now);
  const html = 'text/html; charset=utf-8';
  let graphiql: Promise<GraphiQLParts> | null = null;
  const graphiqlParts = () => {
    graphiql ??= renderGraphiQLParts(keyHint(keyModes));
    graphiql.catch(() => (graphiql = null));
    return graphiql;
  };
  const assets = new Map<string, { asset: StaticAsset; headers: readonly string[] }>([
    ['/graphql', { asset: new StaticAsset(html, async () => (await graphiqlParts()).page), headers: PAGE_HEADERS }],
    ['/favicon.svg', { asset: new StaticAsset('image/svg+xml', () => FAVICON_SVG, 'public, max-age=86400'), headers: PAGE_HEADERS }],
    ['/favicon.ico', { asset: new StaticAsset('image/svg+xml', () => FAVICON_SVG, 'public, max-age=86400'), headers: PAGE_HEADERS }],
    ['/docs', { asset: new StaticAsset(html, () => DOCS_HTML), headers: PAGE_HEADERS }],
    ['/docs/scalar.js', { asset: SCALAR_BUNDLE, headers: PAGE_HEADERS }],
    ['/openapi.json', { asset: new StaticAsset('application/json; charset=utf-8', () => JSON.stringify(openApi(), null, 2)), headers: API_HEADERS }],
    // The committed SDL (npm run codegen prints it; CI checks it is current): directives included,
    // which introspection cannot show (each field's @cost and @listSize).
    [
      '/schema.graphql',
      {
        asset: new StaticAsset('text/plain; charset=utf-8', () => readFile(path.join(PROJECT_ROOT, 'schema', 'schema.graphql'), 'utf8')),
        headers: API_HEADERS,
      },
    ],
    ['/', { asset: new StaticAsset(html, () => indexHtml(keyModes)), headers: PAGE_HEADERS }],
    [
      '/index.json',
      {
        asset: new StaticAsset('application/json; charset=utf-8', () =>
          JSON.stringify({ service: 'ski-zip-gateway', links: Object.fromEntries(INDEX_LINKS.map(([href, text]) => [text, href])) }),
        ),
        headers: API_HEADERS,
      },
    ],
  ]);

  /** The page for this request, if it is one: GraphiQL only for browsers, / as HTML or JSON. */
  function pageOf(ex: Exchange): string | null {
    const method = ex.req.method;
    if (method !== 'GET' && method !== 'HEAD') return null;
    const wantsHtml = (ex.req.headers.accept ?? '').includes('text/html');
    if (ex.path === '/graphql') return wantsHtml ? '/graphql' : null;
    if (ex.path === '/') return wantsHtml ? '/' : '/index.json';
    if (ex.path.startsWith('/graphiql/')) return ex.path;
    return assets.has(ex.path) ? ex.path : null;
  }

  /** GraphiQL's script or styles by their hashed address; an address of another build is 404. */
  async function graphiqlFile(path: string): Promise<{ asset: StaticAsset; headers: readonly string[] } | null> {
    const { script, style } = await graphiqlParts();
    const file =
      path === script.path ? hashedFile(script, 'text/javascript; charset=utf-8') : path === style.path ? hashedFile(style, 'text/css; charset=utf-8') : null;
    return file && { asset: file, headers: PAGE_HEADERS };
  }

  return {
    pageOf,
    async serve(ex: Exchange, page: string): Promise<void> {
      const found = assets.get(page) ?? (page.startsWith('/graphiql/') ? await graphiqlFile(page) : null);
      if (!found) return sendProblem(ex, { status: 404, code: 'NOT_FOUND', detail: `No such file: ${ex.path}` });
      const { asset, headers } = found;
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

/*
 * The large files are the same for every server in a process (an address that carries a hash names
 * one content): each is read and compressed once per process, on its first request, however many
 * servers the process starts.
 */

/** Scalar's prebuilt browser bundle, from its npm package (its exports do not name the file). */
const SCALAR_BUNDLE = new StaticAsset('text/javascript; charset=utf-8', () =>
  readFile(path.join(PROJECT_ROOT, 'node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js')),
);

const byHash = new Map<string, StaticAsset>();
/** GraphiQL's script or styles as a file at its hashed address. */
function hashedFile(file: { path: string; body: string }, contentType: string): StaticAsset {
  let asset = byHash.get(file.path);
  if (!asset) byHash.set(file.path, (asset = new StaticAsset(contentType, () => file.body, IMMUTABLE)));
  return asset;
}
