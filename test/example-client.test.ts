import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { clockAt, startTestServer, TEST_KEY } from './helpers/server.js';

/** The README's client recipe runs as written against a running server. */

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ now: clockAt('2027-02-01T08:30:00Z') });
});
afterAll(async () => {
  await app?.close();
});

function runExample(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/typed-client/nearby-resorts.ts', ...args], {
      cwd: path.resolve(import.meta.dirname, '..'),
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

it('examples/typed-client queries resorts near a ZIP with its typed document', async () => {
  const r = await runExample({ API_URL: `${app.url}/graphql`, API_KEY: TEST_KEY }, '81657');
  expect(r.code, r.out).toBe(0);
  expect(r.out).toMatch(/Ski resorts within 60 miles of 81657 \(Vail, CO\):/);
  expect(r.out).toMatch(/^ {2}Vail +\d+\.\d mi {2}base [\d.]+ in, new [\d.]+ in \(2027-02-01\)$/m);
});

it('says what is wrong when the key is missing or refused', async () => {
  const missing = await runExample({ API_URL: `${app.url}/graphql`, API_KEY: '' });
  expect(missing.code).toBe(2);
  expect(missing.out).toMatch(/Set API_KEY/);
  const refused = await runExample({ API_URL: `${app.url}/graphql`, API_KEY: 'szg_wrong' });
  expect(refused.code).not.toBe(0);
  expect(refused.out).toMatch(/UNAUTHENTICATED|HTTP 401/);
});

it('with its manifest as the trusted documents (GRAPHQL_TRUSTED_ONLY=on), it runs by documentId over GET', async () => {
  const manifest = path.resolve(import.meta.dirname, '../examples/typed-client/gql/persisted-documents.json');
  const trusted = await startTestServer({ now: clockAt('2027-02-01T08:30:00Z'), config: { trustedDocuments: { manifest, only: true } } });
  try {
    const r = await runExample({ API_URL: `${trusted.url}/graphql`, API_KEY: TEST_KEY }, '81657');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^ {2}Vail +\d+\.\d mi {2}base [\d.]+ in, new [\d.]+ in \(2027-02-01\)$/m);
    // Only the manifest's documents run there: the example's text would have been refused.
    const byText = await fetch(`${trusted.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ query: '{ zip(zip: "81657") { city } }' }),
    });
    expect(((await byText.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('PERSISTED_QUERY_ONLY');
  } finally {
    await trusted.close();
  }
});
