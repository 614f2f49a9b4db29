import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Request } from 'playwright-core';
import type { RunningApp } from '../src/app/start.js';
import { routes } from '../src/transports/rest/routes.js';
import { clockAt, startTestServer, TEST_KEY } from './helpers/server.js';
import { CHROMIUM, haveBrowser, launchChromium } from './helpers/chromium.js';

/**
 * GraphiQL and the API docs in a real browser (Debian's chromium, headless; .ci/run installs it
 * when it is missing). Without it the tests skip and say why.
 */

if (!haveBrowser) console.warn(`browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** A second key, to change to. */
const OTHER_KEY = 'szg_other_key_for_the_browser';
const STORE = 'ski-zip-gateway.apiKey';

/** A page that records console errors, uncaught exceptions and every request to another origin. */
async function watchedPage(context: BrowserContext, origin: string) {
  const page = await context.newPage();
  const errors: string[] = [];
  const warnings: string[] = [];
  const outside: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    if (m.type() === 'warning') warnings.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const open = new Set<Request>();
  page.on('request', (r) => {
    const url = r.url();
    // data: and blob: URLs are the page's own memory, never a request anywhere (Chromium does not
    // always report a blob: worker script as finished, so they are not waited for either).
    if (url.startsWith('data:') || url.startsWith('blob:')) return;
    if (!url.startsWith(origin)) outside.push(url);
    open.add(r);
  });
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
  /** Every request the page made has ended (so its errors, if any, are in). */
  const settled = () => expect.poll(() => [...open].map((r) => r.url()), { timeout: 15_000 }).toEqual([]);
  return { page, errors, warnings, outside, settled };
}

describe.skipIf(!haveBrowser)('in a browser', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestServer({ now: clockAt('2027-02-01T08:30:00Z'), config: { apiKeys: [TEST_KEY, OTHER_KEY] } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('GraphiQL asks for the key first, refuses a wrong one, then runs the default query and shows data', async () => {
    const page = await browser.newPage();
    const sentWithoutKey: string[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/graphql') && req.method() === 'POST' && !req.headers()['x-api-key']) sentWithoutKey.push(req.url());
    });
    await page.goto(`${app.url}/graphql`);
    const keyInput = page.getByLabel('API key');
    await keyInput.waitFor();

    await keyInput.fill('szg_wrong');
    await page.getByRole('button', { name: 'Open GraphiQL' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/key/i);

    await keyInput.fill(TEST_KEY);
    await page.getByRole('button', { name: 'Open GraphiQL' }).click();
    // GraphiQL has loaded the schema with the key (the docs explorer knows Query) and runs the default query.
    const run = page.locator('.graphiql-execute-button');
    await run.waitFor();
    // The starter document has two operations: ▶ asks which.
    await run.click();
    await page.getByRole('menuitem', { name: 'SkiNearZip' }).click();
    await expect.poll(async () => (await page.locator('.result-window').textContent()) ?? '', { timeout: 15_000 }).toMatch(/"city":\s*"Vail"/);
    expect(await page.evaluate(() => localStorage.getItem('ski-zip-gateway.apiKey'))).toBe(TEST_KEY);
    expect(sentWithoutKey).toEqual([]);
    await page.close();
  }, 60_000);

  it('GraphiQL opens on a starter document that names itself, and its subscription streams live conditions over SSE', async () => {
    const context = await browser.newContext();
    await context.addInitScript(([store, key]) => localStorage.setItem(store!, key!), [STORE, TEST_KEY]);
    const { page, errors, outside } = await watchedPage(context, app.url);
    const streams: string[] = [];
    page.on('request', (r) => {
      // GraphiQL's executor asks for a subscription as a GET that reads text/event-stream.
      if (r.url().includes('/graphql') && (r.headers().accept ?? '').includes('text/event-stream'))
        streams.push(decodeURIComponent(r.url()) + (r.postData() ?? ''));
    });
    try {
      await page.goto(`${app.url}/graphql`);
      const run = page.locator('.graphiql-execute-button');
      await run.waitFor();
      // The tab is named after the document's first operation, not <untitled>.
      await expect.poll(() => page.locator('.graphiql-tab').first().textContent()).toBe('SkiNearZip');
      await run.click();
      await page.getByRole('menuitem', { name: 'LiveConditions' }).click();
      const result = () =>
        page
          .locator('.result-window')
          .textContent()
          .then((t) => t ?? '');
      await expect.poll(result, { timeout: 15_000 }).toMatch(/"reason":\s*"INITIAL"/);
      expect(await result()).toMatch(/"resortId":\s*"(vail|beaver-creek)"/);
      expect(streams.some((body) => body.includes('conditionsChanged'))).toBe(true);
      // Stopped with the same button.
      await run.click();
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('/docs renders the OpenAPI document and lists the ZIP paths; no AI, share or deploy control; links to GraphiQL and /; keeps the key typed into it across reloads', async () => {
    const context = await browser.newContext();
    try {
      const { page, errors, outside } = await watchedPage(context, app.url);
      await page.goto(`${app.url}/docs`);
      await expect.poll(async () => (await page.locator('body').innerText()).length, { timeout: 20_000 }).toBeGreaterThan(500);
      // Every ZIP path is in the sidebar, by its summary from the route table.
      const text = await page.locator('body').innerText();
      for (const route of routes.filter(
        (r) => r.path.startsWith('/api/zip') || r.path.startsWith('/api/states') || r.path.startsWith('/api/city') || r.path === '/api/stats',
      )) {
        expect(text).toContain(route.summary);
      }
      expect(text).not.toMatch(/Ask AI|\bShare\b|\bDeploy\b/);
      // Each GET's HEAD twin is in the document, not in the sidebar beside it.
      expect(text).not.toContain('(headers only)');
      // The introduction (the document's description) links to GraphiQL and the index.
      await expect.poll(() => page.locator('a[href="/graphql"]').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await page.locator('a[href="/"]').count()).toBeGreaterThan(0);
      // Opening one shows its path and parameters.
      await page.getByText('ZIP codes within a radius of a ZIP, nearest first (the ZIP itself excluded).').first().click();
      await expect.poll(async () => page.locator('body').innerText(), { timeout: 10_000 }).toMatch(/\/api\/zip\/\{zip\}\/nearby[\s\S]*radiusMiles/);
      // The key field of Scalar's authentication box (its placeholder is Scalar's sample value).
      const keyField = page.locator('input[placeholder="QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT"]').first();
      await keyField.fill(TEST_KEY);
      // Scalar stores it a moment later: reload once it is in the browser's storage.
      await expect.poll(() => page.evaluate(() => Object.values(localStorage).join(' '))).toContain(TEST_KEY);
      await page.reload();
      await keyField.waitFor({ timeout: 20_000 });
      await expect.poll(() => keyField.inputValue()).toBe(TEST_KEY);
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('/docs: Scalar validates /openapi.json as it loads it and finds nothing to warn of', async () => {
    const context = await browser.newContext();
    try {
      const { page, warnings, settled } = await watchedPage(context, app.url);
      await page.goto(`${app.url}/docs`);
      await page.getByText('ZIP codes within a radius of a ZIP, nearest first (the ZIP itself excluded).').first().waitFor({ timeout: 20_000 });
      await settled();
      // Each error would be a "document validation errors" warning (as SyncRun's nullable finishedAt was), a deprecated option another.
      expect(warnings).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('/docs starts with the key GraphiQL keeps in the browser: Test Request sends it and is answered', async () => {
    const context = await browser.newContext();
    await context.addInitScript(([store, key]) => localStorage.setItem(store!, key!), [STORE, TEST_KEY]);
    try {
      const { page, errors, outside } = await watchedPage(context, app.url);
      const answers: { status: number; key?: string }[] = [];
      page.on('response', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/')) answers.push({ status: r.status(), key: r.request().headers()['x-api-key'] });
      });
      await page.goto(`${app.url}/docs`);
      await page.getByText('ZIP codes within a radius of a ZIP, nearest first (the ZIP itself excluded).').first().waitFor({ timeout: 20_000 });
      // Nothing typed: the key field holds GraphiQL's key.
      const keyField = page.locator('input[placeholder="QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT"]').first();
      await expect.poll(() => keyField.inputValue(), { timeout: 10_000 }).toBe(TEST_KEY);
      // The intro says where a key comes from.
      await expect.poll(() => page.locator('body').innerText(), { timeout: 10_000 }).toContain('Where to get one');
      await page
        .getByRole('button', { name: /Test Request/ })
        .first()
        .click();
      await page.getByRole('button', { name: /^Send/ }).first().click();
      await expect.poll(() => answers, { timeout: 10_000 }).toEqual([{ status: 200, key: TEST_KEY }]);
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  // What each page must show once it has rendered (GraphiQL with a key already stored).
  const rendered: Record<string, string> = { '/': 'h1', '/graphql': '.graphiql-execute-button', '/docs': 'text=ZIP codes within a radius of a ZIP' };
  it('at 1280×800 and at 390×844, every page renders with a viewport, no console error and no request outside the server', async () => {
    // One browser context for both widths: GraphiQL's 8 MB script and Scalar's are fetched and compiled once.
    const context = await browser.newContext();
    await context.addInitScript(([store, key]) => localStorage.setItem(store!, key!), [STORE, TEST_KEY]);
    try {
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        for (const [path, selector] of Object.entries(rendered)) {
          const where = `${path} at ${width}`;
          const { page, errors, outside, settled } = await watchedPage(context, app.url);
          await page.setViewportSize({ width, height });
          await page.goto(`${app.url}${path}`);
          await page.locator(selector).first().waitFor({ timeout: 20_000 });
          // Chromium asks for the icon by itself: served without a key, it is no console error.
          await settled();
          expect(await page.locator('meta[name="viewport"]').getAttribute('content'), where).toBe('width=device-width, initial-scale=1');
          // Laid out for the width: nothing wider than the window (the index and GraphiQL's bar).
          expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(width);
          if (path === '/graphql') expect((await page.locator('#szg-bar').boundingBox())!.width, where).toBeLessThanOrEqual(width);
          expect(errors, where).toEqual([]);
          expect(outside, where).toEqual([]);
          await page.close();
        }
      }
    } finally {
      await context.close();
    }
  }, 90_000);

  it('GraphiQL links to / and /docs, shows which key it uses, and can change or forget it', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/graphql`);
      await page.getByLabel('API key').fill(TEST_KEY);
      await page.getByRole('button', { name: 'Open GraphiQL' }).click();
      await page.locator('.graphiql-execute-button').waitFor();
      const bar = page.getByRole('navigation', { name: 'ski-zip-gateway' });
      expect(await bar.locator('a[href="/"]').count()).toBe(1);
      expect(await bar.locator('a[href="/docs"]').count()).toBe(1);
      expect(await bar.locator('[data-key]').textContent()).toBe(`${TEST_KEY.slice(0, 4)}…${TEST_KEY.slice(-4)}`);

      // Change key: the form comes back, and may be cancelled.
      await bar.getByRole('button', { name: 'Change key' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => page.getByLabel('API key').isVisible()).toBe(false);
      // A wrong key is refused and the stored one stays; a right one restarts GraphiQL with it.
      await bar.getByRole('button', { name: 'Change key' }).click();
      await page.getByLabel('API key').fill('szg_wrong');
      await page.getByRole('button', { name: 'Open GraphiQL' }).click();
      await expect.poll(() => page.locator('#szg-key [data-error]').textContent()).toMatch(/key/i);
      expect(await page.evaluate((store) => localStorage.getItem(store), STORE)).toBe(TEST_KEY);
      await page.getByLabel('API key').fill(OTHER_KEY);
      await page.getByRole('button', { name: 'Open GraphiQL' }).click();
      await expect.poll(() => page.locator('#szg-bar [data-key]').textContent(), { timeout: 15_000 }).toBe(`${OTHER_KEY.slice(0, 4)}…${OTHER_KEY.slice(-4)}`);
      expect(await page.evaluate((store) => localStorage.getItem(store), STORE)).toBe(OTHER_KEY);

      // Forget key: gone from the browser, and the page asks again.
      await page.locator('#szg-bar').getByRole('button', { name: 'Forget key' }).click();
      await page.getByLabel('API key').waitFor();
      expect(await page.evaluate((store) => localStorage.getItem(store), STORE)).toBeNull();
    } finally {
      await context.close();
    }
  }, 60_000);
});
