import { hash } from 'node:crypto';

/**
 * The GraphiQL page, self-hosted (it works offline and under our CSP). Before GraphiQL sends
 * anything it asks for an API key (kept in the browser's local storage), checks it against
 * /health, and then starts GraphiQL with the key in its headers, so the schema loads on the first
 * try instead of a raw 401.
 */

export const DEFAULT_QUERY = `# Your API key is in the Headers tab below (stored in this browser).
# Forget it with: localStorage.removeItem('ski-zip-gateway.apiKey') in the console.

query {
  zip(zip: "81657") {
    city
    nearbyResorts(radiusMiles: 40, limit: 3) { distanceMiles resort { name conditions { snowDepthBase newSnow24h } } }
  }
}
`;

const KEY_FORM = `
<div id="szg-key" style="position:fixed;inset:0;display:none;align-items:center;justify-content:center;background:#0b1220;color:#e6edf3;font:16px/1.5 system-ui,sans-serif;z-index:10">
  <form style="max-width:34rem;padding:2rem;background:#111a2e;border-radius:12px">
    <h1 style="margin:0 0 .5rem;font-size:1.4rem">ski-zip-gateway · GraphiQL</h1>
    <p style="margin:0 0 1rem">Every request needs an API key. Paste yours; it stays in this browser.</p>
    <input name="key" autocomplete="off" spellcheck="false" placeholder="szg_…" aria-label="API key"
      style="width:100%;box-sizing:border-box;padding:.6rem;border-radius:6px;border:1px solid #334;background:#0b1220;color:inherit;font:inherit">
    <p data-error role="alert" style="color:#ff8080;min-height:1.5em;margin:.5rem 0"></p>
    <button style="padding:.5rem 1.2rem;border-radius:6px;border:0;background:#e535ab;color:#fff;font:inherit;cursor:pointer">Open GraphiQL</button>
    <p style="margin:1rem 0 0;opacity:.8;font-size:.9rem">No key? The server prints a first one in its start log; or run
      <code>npm run keys -- create --name me</code> in the project.</p>
  </form>
</div>`;

/** Replaces Yoga's own start call: ask for the key first, then start GraphiQL with it. */
function bootstrap(options: Record<string, unknown>): string {
  return `
  (function () {
    var STORE = 'ski-zip-gateway.apiKey';
    var options = ${JSON.stringify(options)};
    function start(key) {
      options.headers = JSON.stringify({ 'x-api-key': key }, null, 2);
      YogaGraphiQL.renderYogaGraphiQL(window.document.querySelector('#root'), options);
    }
    function check(key) {
      return fetch('/health', { headers: { 'x-api-key': key } }).then(function (r) {
        if (r.ok) return null;
        return r.json().then(function (p) { return p.detail || ('HTTP ' + r.status); }, function () { return 'HTTP ' + r.status; });
      }, function () { return 'The server did not answer.'; });
    }
    function ask() {
      var box = document.getElementById('szg-key');
      var form = box.querySelector('form');
      var error = box.querySelector('[data-error]');
      box.style.display = 'flex';
      form.key.focus();
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var key = form.key.value.trim();
        if (!key) return;
        check(key).then(function (problem) {
          if (problem) { error.textContent = problem; return; }
          localStorage.setItem(STORE, key);
          box.remove();
          start(key);
        });
      });
    }
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
 * Yoga's GraphiQL page is one 9 MB HTML file: its script (8 MB), its styles (0.8 MB) and an icon
 * (0.15 MB) inline. Here the script and styles become files of their own (the icon is ours), which a browser keeps for a year (their address
 * changes with their content), and a page of a few kilobytes that asks for the key first.
 */
export async function renderGraphiQLParts(): Promise<GraphiQLParts> {
  // The page's bundle is 9 MB of JavaScript: loaded only when someone first asks for the page.
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const options = { endpoint: '/graphql', title: 'ski-zip-gateway', defaultQuery: DEFAULT_QUERY, headers: '{}' };
  const html = renderGraphiQL(options);
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
<title>ski-zip-gateway · GraphiQL</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="${styleFile.path}"></head>
<body id="body" class="no-focus-outline"><noscript>You need to enable JavaScript to run GraphiQL.</noscript><div id="root"></div>${KEY_FORM}
<script src="${scriptFile.path}"></script>
<script>${bootstrap(options)}</script>
</body></html>
`;
  return { page, script: scriptFile, style: styleFile };
}
