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

export async function renderGraphiQLPage(): Promise<string> {
  // The page's bundle is 9 MB of JavaScript: loaded only when someone first asks for the page.
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const options = { endpoint: '/graphql', title: 'ski-zip-gateway', defaultQuery: DEFAULT_QUERY, headers: '{}' };
  const html = renderGraphiQL(options);
  const call = html.lastIndexOf('YogaGraphiQL.renderYogaGraphiQL(');
  const end = html.indexOf('</script>', call);
  if (call === -1 || end === -1) throw new Error('unexpected GraphiQL page layout');
  const page = html.slice(0, call) + bootstrap(options) + '\n' + html.slice(end);
  return page.replace(/<body[^>]*>/, (tag) => tag + KEY_FORM);
}
