import { hash } from 'node:crypto';
import { BROWSER_KEY_STORE } from './browser-key.js';

/**
 * The GraphiQL page, self-hosted (it works offline and under our CSP). Before GraphiQL sends
 * anything it asks for an API key (kept in the browser's local storage), checks it against
 * /health, and then starts GraphiQL with the key in its headers, so the schema loads on the first
 * try instead of a raw 401.
 */

export const DEFAULT_QUERY = `# Welcome to ski-zip-gateway: US ZIP codes and ski
# resort conditions in one graph. Your API key is in the
# Headers tab below; change or forget it at the top.
# The Docs button (top left) lists every field.
#
# Press ▶ and pick an operation:
# - SkiNearZip asks both services at once: a ZIP code,
#   and the resorts near it with today's report.
# - LiveConditions subscribes to reports as they change:
#   each resort's report now (INITIAL), then one whenever
#   new data is fetched (SYNC), the hour turns (HOUR) or
#   lifts open or close (LIFTS). ■ stops it.

query SkiNearZip {
  zip(zip: "81657") {
    city
    state { stateName }
    nearbyResorts(radiusMiles: 40, limit: 3) {
      distanceMiles
      resort { name conditions { snowDepthBase newSnow24h openLifts totalLifts } }
    }
  }
}

subscription LiveConditions {
  conditionsChanged(resortIds: ["vail", "beaver-creek"]) {
    resortId
    reason
    syncedAt
    conditions { updatedAt snowDepthBase newSnow24h openLifts }
  }
}
`;

/** The form that asks for a key (first, after "Change key", or when the stored one stops working). */
const keyForm = (hint: string) => `
<div id="szg-key" style="position:fixed;inset:0;display:none;align-items:center;justify-content:center;background:#0b1220;color:#e6edf3;font:16px/1.5 system-ui,sans-serif;z-index:10;padding:1rem">
  <form style="max-width:34rem;width:100%;box-sizing:border-box;padding:2rem;background:#111a2e;border-radius:12px">
    <h1 style="margin:0 0 .5rem;font-size:1.4rem">ski-zip-gateway · GraphiQL</h1>
    <p style="margin:0 0 1rem">Every request needs an API key. Paste yours; it stays in this browser.</p>
    <input name="key" autocomplete="off" spellcheck="false" placeholder="szg_…" aria-label="API key"
      style="width:100%;box-sizing:border-box;padding:.6rem;border-radius:6px;border:1px solid #334;background:#0b1220;color:inherit;font:inherit">
    <p data-error role="alert" style="color:#ff8080;min-height:1.5em;margin:.5rem 0"></p>
    <button style="padding:.5rem 1.2rem;border-radius:6px;border:0;background:#e535ab;color:#fff;font:inherit;cursor:pointer">Open GraphiQL</button>
    <button type="button" data-cancel hidden style="padding:.5rem 1.2rem;border-radius:6px;border:1px solid #556;background:none;color:inherit;font:inherit;cursor:pointer">Cancel</button>
    <p style="margin:1rem 0 0;opacity:.8;font-size:.9rem;overflow-wrap:anywhere">No key? ${hint}</p>
    <p style="margin:.5rem 0 0;font-size:.9rem"><a href="/" style="color:#9ecbff">Home</a> · <a href="/docs" style="color:#9ecbff">REST API reference</a></p>
  </form>
</div>`;

/** A slim bar above GraphiQL: where else to go, and the key in use with a way to change or forget it. */
const BAR = `
<nav id="szg-bar" aria-label="ski-zip-gateway" style="display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.3rem .75rem;font:14px/1.5 system-ui,sans-serif;background:#0b1220;color:#e6edf3">
  <a href="/" style="color:#e6edf3;font-weight:600;text-decoration:none">ski-zip-gateway</a>
  <a href="/docs" style="color:#9ecbff">REST API reference</a>
  <span style="margin-left:auto">Key <code data-key>…</code></span>
  <button type="button" data-change style="font:inherit;padding:.1rem .6rem;border-radius:4px;border:1px solid #556;background:#111a2e;color:inherit;cursor:pointer">Change key</button>
  <button type="button" data-forget style="font:inherit;padding:.1rem .6rem;border-radius:4px;border:1px solid #556;background:#111a2e;color:inherit;cursor:pointer">Forget key</button>
</nav>`;

/** Replaces Yoga's own start call: ask for the key first, then start GraphiQL with it. */
function bootstrap(options: Record<string, unknown>): string {
  return `
  (function () {
    var STORE = ${JSON.stringify(BROWSER_KEY_STORE)};
    var options = ${JSON.stringify(options)};
    var box = document.getElementById('szg-key');
    var form = box.querySelector('form');
    var error = box.querySelector('[data-error]');
    var bar = document.getElementById('szg-bar');
    var started = false;
    function start(key) {
      started = true;
      bar.querySelector('[data-key]').textContent = key.length > 8 ? key.slice(0, 4) + '…' + key.slice(-4) : '…';
      options.headers = JSON.stringify({ 'x-api-key': key }, null, 2);
      YogaGraphiQL.renderYogaGraphiQL(window.document.querySelector('#root'), options);
    }
    function check(key) {
      return fetch('/health', { headers: { 'x-api-key': key } }).then(function (r) {
        // Read to the end even when it is fine: an unread body keeps the request open in the browser.
        if (r.ok) return r.text().then(function () { return null; });
        return r.json().then(function (p) { return p.detail || ('HTTP ' + r.status); }, function () { return 'HTTP ' + r.status; });
      }, function () { return 'The server did not answer.'; });
    }
    function ask() {
      form.querySelector('[data-cancel]').hidden = !started;
      error.textContent = '';
      form.key.value = '';
      box.style.display = 'flex';
      form.key.focus();
    }
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var key = form.key.value.trim();
      if (!key) return;
      check(key).then(function (problem) {
        if (problem) { error.textContent = problem; return; }
        localStorage.setItem(STORE, key);
        // GraphiQL keeps its headers once started: a new key starts the page afresh.
        if (started) return location.reload();
        box.style.display = 'none';
        start(key);
      });
    });
    bar.querySelector('[data-change]').addEventListener('click', ask);
    form.querySelector('[data-cancel]').addEventListener('click', function () { box.style.display = 'none'; });
    bar.querySelector('[data-forget]').addEventListener('click', function () {
      localStorage.removeItem(STORE);
      location.reload();
    });
    var saved = localStorage.getItem(STORE);
    if (!saved) return ask();
    check(saved).then(function (problem) {
      if (problem) { localStorage.removeItem(STORE); ask(); } else start(saved);
    });
  })();`;
}

/** GraphiQL as a small page and the files it loads, each with an address that carries its hash. */
export interface GraphiQLParts {
  page: string;
  script: { path: string; body: string };
  style: { path: string; body: string };
}

const hashed = (name: string, ext: string, body: string) => ({ path: `/graphiql/${name}.${hash('sha1', body, 'hex').slice(0, 12)}.${ext}`, body });

/**
 * Yoga's GraphiQL page is one large HTML file: its script, its styles and an icon inline. Here the script and styles become files of their own (the icon is ours), which a browser keeps for a year (their address
 * changes with their content), and a page of a few kilobytes that asks for the key first.
 */
export async function renderGraphiQLParts(keyHint: string): Promise<GraphiQLParts> {
  // The page's bundle is megabytes of JavaScript: loaded only when someone first asks for the page.
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  // Subscriptions over SSE (POST, accept: text/event-stream), with the key from the Headers tab.
  const options = { endpoint: '/graphql', title: 'ski-zip-gateway', defaultQuery: DEFAULT_QUERY, headers: '{}', subscriptionsProtocol: 'SSE' as const };
  return graphiqlPartsOf(renderGraphiQL(options), options, keyHint);
}

/** Yoga's page taken apart: its styles, and its script up to the call that starts it (ours starts it after the key). */
export function graphiqlPartsOf(html: string, options: Record<string, unknown>, keyHint: string): GraphiQLParts {
  const between = (from: number, open: string, close: string) => {
    const start = html.indexOf(open, from);
    const end = html.indexOf(close, start + open.length);
    if (start === -1 || end === -1) throw new Error(`unexpected GraphiQL page layout (${open})`);
    return { start, end, text: html.slice(start + open.length, end) };
  };
  const style = between(0, '<style>', '</style>');
  const body = html.indexOf('<body');
  const script = between(body, '<script>', '</script>');
  const call = script.text.lastIndexOf('YogaGraphiQL.renderYogaGraphiQL(');
  if (call === -1) throw new Error('unexpected GraphiQL page layout (render call)');
  const scriptFile = hashed('graphiql', 'js', script.text.slice(0, call));
  const styleFile = hashed('graphiql', 'css', style.text);
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>ski-zip-gateway · GraphiQL</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="${styleFile.path}">
<style>body{display:flex;flex-direction:column;height:100vh;margin:0}#root{flex:1;min-height:0;height:auto}</style></head>
<body id="body" class="no-focus-outline"><noscript>You need to enable JavaScript to run GraphiQL.</noscript>${BAR}<div id="root"></div>${keyForm(keyHint)}
<script src="${scriptFile.path}"></script>
<script>${bootstrap(options)}</script>
</body></html>
`;
  return { page, script: scriptFile, style: styleFile };
}
