import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import type { RunningApp } from '../src/app.js';
import { routes } from '../src/rest/routes.js';
import { clockAt, startTestServer, TEST_KEY } from './helpers/server.js';

/**
 * GraphiQL and the API docs in a real browser (Debian's chromium, headless; .ci/run installs it
 * when it is missing). Without it the tests skip and say why.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser) console.warn(`browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe.skipIf(!haveBrowser)('in a browser', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestServer({ now: clockAt('2027-02-01T08:30:00Z') });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
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
    await run.click();
    await expect.poll(async () => (await page.locator('.result-window').textContent()) ?? '', { timeout: 15_000 }).toMatch(/"city":\s*"Vail"/);
    expect(await page.evaluate(() => localStorage.getItem('ski-zip-gateway.apiKey'))).toBe(TEST_KEY);
    expect(sentWithoutKey).toEqual([]);
    await page.close();
  }, 60_000);

  it('/docs renders the OpenAPI document and lists the ZIP paths', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}/docs`);
    await expect.poll(async () => (await page.locator('body').innerText()).length, { timeout: 20_000 }).toBeGreaterThan(500);
    // Every ZIP path is in the sidebar, by its summary from the route table.
    const text = await page.locator('body').innerText();
    for (const route of routes.filter((r) => r.path.startsWith('/api/zip') || r.path.startsWith('/api/states') || r.path.startsWith('/api/city') || r.path === '/api/stats')) {
      expect(text).toContain(route.summary);
    }
    // Opening one shows its path and parameters.
    await page.getByText('ZIP codes within a radius of a ZIP, nearest first (the ZIP itself excluded).').first().click();
    await expect.poll(async () => page.locator('body').innerText(), { timeout: 10_000 }).toMatch(/\/api\/zip\/\{zip\}\/nearby[^]*radiusMiles/);
    await page.close();
  }, 60_000);
});
