import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_KEY_STORE } from '../../src/http/browser-key.js';
import { DEFAULT_QUERY, graphiqlPartsOf, renderGraphiQLParts } from '../../src/http/graphiql-page.js';
import { createPages, keyHint, PAGE_LOADS_PER_MINUTE } from '../../src/http/pages.js';
import { ask, closeServers, rawGet, serving } from './serving.js';

/** What is served without a key, through an exchange on a real server; the limiter on a clock the test moves. */
let clock: number;
const html = { headers: { accept: 'text/html,application/xhtml+xml' } };
let url: string;
const openApi = { openapi: '3.1.0', info: { title: 'ski-zip-gateway' } };

/**
 * The large files (GraphiQL's script, Scalar's bundle) are read and compressed once per process, on
 * their first request: seconds of work on a busy machine, which a request's fail-fast bound is not
 * for. They are made here, before the tests ask for them. A failure here is not the test's: its own
 * requests make them again (a file that failed is not kept) and fail there.
 */
beforeAll(() => makeLargeFiles().catch(() => undefined), 60_000);
async function makeLargeFiles(): Promise<void> {
  const pages = createPages(() => openApi, { auth: false, apiKeys: [] }, Date.now);
  const at = await serving((ex) => pages.serve(ex, pages.pageOf(ex) ?? '/'));
  const load = async (file: string, init?: RequestInit) => (await fetch(at + file, init)).text();
  const files = [...(await load('/graphql', html)).matchAll(/(?:src|href)="(\/graphiql\/[^"]+)"/g)].map((m) => m[1]!);
  await Promise.all(['/docs/scalar.js', ...files].map((file) => load(file)));
}

beforeEach(async () => {
  clock = Date.parse('2027-02-10T12:00:00Z');
  const pages = createPages(
    () => openApi,
    { auth: true, apiKeys: [] },
    () => clock,
  );
  url = await serving(async (ex) => {
    const page = pages.pageOf(ex);
    if (page === null) return ex.send(418, 'text/plain', 'not a page');
    await pages.serve(ex, page);
  });
});
afterEach(closeServers);

describe('which requests are pages', () => {
  it('GET and HEAD only; GraphiQL at /graphql for browsers alone; / as HTML for browsers, JSON otherwise', async () => {
    expect((await ask(`${url}/docs`, { method: 'POST' })).status).toBe(418);
    expect((await ask(`${url}/docs`, { method: 'HEAD' })).status).toBe(200);
    expect((await ask(`${url}/graphql`)).status).toBe(418);
    const graphiql = await ask(`${url}/graphql`, html);
    expect([graphiql.status, graphiql.headers.get('content-type'), graphiql.headers.get('cross-origin-opener-policy')]).toEqual([
      200,
      'text/html; charset=utf-8',
      'same-origin',
    ]);
    expect((await ask(url, html)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    const index = await ask(url);
    expect([index.headers.get('content-type'), index.headers.get('cross-origin-opener-policy'), await index.json()]).toEqual([
      'application/json; charset=utf-8',
      null,
      {
        service: 'ski-zip-gateway',
        links: {
          'GraphQL (GraphiQL in a browser)': '/graphql',
          'REST API reference': '/docs',
          'OpenAPI 3.1 document': '/openapi.json',
          "GraphQL schema (SDL, with each field's @cost)": '/schema.graphql',
          'Readiness probe': '/readyz',
        },
      },
    ]);
    expect((await ask(`${url}/api/zip/05401`)).status).toBe(418);
  });

  it('the index page links every one of them and says how to get a key', async () => {
    const page = await (await ask(url, html)).text();
    for (const href of ['/graphql', '/docs', '/openapi.json', '/schema.graphql', '/readyz']) expect(page).toContain(`<li><a href="${href}">`);
    expect(page).toContain('<code>/graphql</code></li><li><a href="/docs">');
    expect(page).toContain(keyHint({ auth: true, apiKeys: [] }));
    expect(page).toMatch(/^<!doctype html>/);
  });
});

describe('each file', () => {
  it('the OpenAPI document as the server describes itself, an API answer’s headers', async () => {
    const r = await ask(`${url}/openapi.json`);
    expect([r.headers.get('content-type'), r.headers.get('cross-origin-opener-policy'), r.headers.get('cache-control')]).toEqual([
      'application/json; charset=utf-8',
      null,
      'no-cache',
    ]);
    expect(await r.text()).toBe(JSON.stringify(openApi, null, 2));
  });

  it('the committed SDL, the icon (also as /favicon.ico), the reference and its bundle from the npm package', async () => {
    const sdl = await ask(`${url}/schema.graphql`);
    expect([sdl.headers.get('content-type'), await sdl.text()]).toEqual(['text/plain; charset=utf-8', readFileSync('schema/schema.graphql', 'utf8')]);
    for (const icon of ['/favicon.svg', '/favicon.ico']) {
      const r = await ask(url + icon);
      expect([r.headers.get('content-type'), r.headers.get('cache-control')]).toEqual(['image/svg+xml', 'public, max-age=86400']);
      expect(await r.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
    const docs = await (await ask(`${url}/docs`)).text();
    expect(docs).toContain('<script src="/docs/scalar.js"></script>');
    expect(docs).toContain(`localStorage.getItem(${JSON.stringify(BROWSER_KEY_STORE)})`);
    const bundle = await rawGet(`${url}/docs/scalar.js`, { 'accept-encoding': 'br' });
    expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(brotliDecompressSync(bundle.body).equals(readFileSync('node_modules/@scalar/api-reference/dist/browser/standalone.js'))).toBe(true);
  });

  it('GraphiQL’s script and styles at their hashed addresses, kept a year; another build’s address is 404', async () => {
    const page = await (await ask(`${url}/graphql`, html)).text();
    const script = page.match(/<script src="(\/graphiql\/graphiql\.[0-9a-f]{12}\.js)"><\/script>/)![1]!;
    const style = page.match(/<link rel="stylesheet" href="(\/graphiql\/graphiql\.[0-9a-f]{12}\.css)">/)![1]!;
    const js = await ask(url + script);
    expect([js.status, js.headers.get('content-type'), js.headers.get('cache-control')]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
    ]);
    expect(await js.text()).toContain('YogaGraphiQL');
    const css = await ask(url + style);
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    const stale = await ask(`${url}/graphiql/graphiql.000000000000.js`);
    expect([stale.status, await stale.json()]).toMatchObject([404, { code: 'NOT_FOUND', detail: 'No such file: /graphiql/graphiql.000000000000.js' }]);
  });
});

describe('page loads per address', () => {
  it(`${PAGE_LOADS_PER_MINUTE} a minute, then 429 with when to come back; the next minute they load again`, async () => {
    for (let i = 0; i < PAGE_LOADS_PER_MINUTE; i++) expect((await ask(`${url}/favicon.svg`)).status).toBe(200);
    clock += 15_000;
    const limited = await ask(`${url}/docs`);
    expect([limited.status, limited.headers.get('retry-after'), await limited.json()]).toMatchObject([
      429,
      '45',
      { code: 'RATE_LIMITED', detail: `At most ${PAGE_LOADS_PER_MINUTE} page loads a minute from one address without a key.` },
    ]);
    clock += 45_000;
    expect((await ask(`${url}/docs`)).status).toBe(200);
  });

  it('each address has its own: another address still loads while one is limited', async () => {
    for (let i = 0; i <= PAGE_LOADS_PER_MINUTE; i++) await ask(`${url}/favicon.svg`);
    expect((await ask(`${url}/favicon.svg`)).status).toBe(429);
    expect((await rawGet(`${url}/favicon.svg`, {}, '127.0.0.2')).status).toBe(200);
  });
});

describe('how the pages tell of keys', () => {
  it('in each way the server can be started', () => {
    const off = 'This server runs with <code>AUTH=off</code> (local development): keys are not checked.';
    expect([keyHint({ auth: false, apiKeys: [] }), keyHint({ auth: false, apiKeys: ['k'] })]).toEqual([off, off]);
    expect(keyHint({ auth: true, apiKeys: ['k'] })).toBe(
      "This server's keys are set by its operator (<code>API_KEYS</code>): ask them for one, or run <code>npm run keys -- create --name me</code> where the server runs.",
    );
    expect(keyHint({ auth: true, apiKeys: [] })).toBe(
      'The first time the server started it printed a first key on its terminal (stderr) and wrote it to first-api-key.txt beside its database; or run <code>npm run keys -- create --name me</code> where the server runs.',
    );
  });
});

describe('the GraphiQL page', () => {
  it('a small page: the bar, the key form with the hint, its files by hash, and a start that asks for the key first', async () => {
    const parts = await renderGraphiQLParts('ASK THE OPERATOR');
    expect(parts.page.length).toBeLessThan(20_000);
    expect(parts.page).toMatch(/^<!doctype html>/);
    expect(parts.page).toContain('<nav id="szg-bar" aria-label="ski-zip-gateway"');
    expect(parts.page).toContain('<div id="szg-key"');
    expect(parts.page).toContain('No key? ASK THE OPERATOR</p>');
    expect(parts.page).toContain(`<link rel="stylesheet" href="${parts.style.path}">`);
    expect(parts.page).toContain(`<script src="${parts.script.path}"></script>`);
    expect(parts.page).toContain(`var STORE = ${JSON.stringify(BROWSER_KEY_STORE)};`);
    // Yoga's own start call is replaced: the options it would have started with, subscriptions over SSE.
    expect(parts.page).toContain('var options = {"endpoint":"/graphql","title":"ski-zip-gateway","defaultQuery":');
    expect(parts.page).toContain('"headers":"{}","subscriptionsProtocol":"SSE"};');
    expect(parts.page).toContain(JSON.stringify(DEFAULT_QUERY));
    expect(parts.script.body).not.toContain('YogaGraphiQL.renderYogaGraphiQL(');
    expect(parts.script.body.length).toBeGreaterThan(100_000);
    expect(parts.style.body.length).toBeGreaterThan(1_000);
    expect(parts.style.body).not.toContain('<style>');
    expect(parts.script.path).toMatch(/^\/graphiql\/graphiql\.[0-9a-f]{12}\.js$/);
  });
});

describe("Yoga's page taken apart", () => {
  const yoga = (head: string, body: string) => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

  it('its styles, and its script in the body up to the call that starts GraphiQL', () => {
    const html = yoga('<script>head()</script><style>a{b:c}</style>', '<div></div><script>var x = 1;\nYogaGraphiQL.renderYogaGraphiQL(root, {})</script>');
    const parts = graphiqlPartsOf(html, { endpoint: '/graphql' }, 'hint');
    expect([parts.style.body, parts.script.body]).toEqual(['a{b:c}', 'var x = 1;\n']);
    expect(parts.page).toContain('var options = {"endpoint":"/graphql"};');
  });

  it('a page laid out otherwise is refused, naming what is missing', () => {
    const start = '<script>YogaGraphiQL.renderYogaGraphiQL(root, {})</script>';
    expect(() => graphiqlPartsOf(yoga('', start), {}, '')).toThrow('unexpected GraphiQL page layout (<style>)');
    expect(() => graphiqlPartsOf(yoga('<style>a{}', start), {}, '')).toThrow('unexpected GraphiQL page layout (<style>)');
    expect(() => graphiqlPartsOf(yoga('a{}</style>', start), {}, '')).toThrow('unexpected GraphiQL page layout (<style>)');
    expect(() => graphiqlPartsOf(yoga('<style>a{}</style>', ''), {}, '')).toThrow('unexpected GraphiQL page layout (<script>)');
    expect(() => graphiqlPartsOf(yoga('<style>a{}</style>', '<script>start()'), {}, '')).toThrow('unexpected GraphiQL page layout (<script>)');
    expect(() => graphiqlPartsOf(yoga('<style>a{}</style>', '<script>start()</script>'), {}, '')).toThrow('unexpected GraphiQL page layout (render call)');
  });
});
