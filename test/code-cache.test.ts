import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript, no declarations
import { buildDist } from '../scripts/build.mjs';
import { BUNDLE_DIR } from './helpers/bundle.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';
import { privateDatabase, TEST_KEY } from './helpers/server.js';
import { until } from './helpers/wait.js';

/**
 * npm start's bundle leaves V8's code cache beside itself once warm (or at a clean stop before
 * that), and the next start loads it (scripts/load-bundle.mjs): a start without one, a start with
 * one, a start with a damaged one, and a server stopped before it was warm.
 * Each runs a copy of the suite's bundle in a directory of its own (inside .test-dist/, so that
 * node_modules resolve), where no other test's servers write a cache.
 */
describe('the code cache', () => {
  const env = { API_KEYS: TEST_KEY };
  const codeCacheOf = (server: ServerProcess) => /"codeCache":"(\w+)"/.exec(server.output())?.[1];
  const cacheFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.cache'));

  async function answers(server: ServerProcess): Promise<void> {
    const base = await server.url;
    const zip = await fetch(`${base}/api/zip/90210`, { headers: { 'x-api-key': TEST_KEY } });
    expect(zip.status).toBe(200);
    expect(((await zip.json()) as { city: string }).city).toBe('Beverly Hills');
    const gql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename zip(zip: "90210") { city } }' }),
    });
    expect(await gql.json()).toMatchObject({ data: { __typename: 'Query', zip: { city: 'Beverly Hills' } } });
  }

  async function stop(server: ServerProcess): Promise<void> {
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  }

  /** Starts the bundle, checks its answers and what it found of the cache; `leaves`: waits for it to write one. */
  async function start(script: string, db: string, found: string, leaves: boolean, more: Record<string, string> = {}): Promise<ServerProcess> {
    const server = spawnServer(db, { ...env, ...more }, script);
    try {
      await answers(server);
      expect(codeCacheOf(server)).toBe(found);
      if (leaves)
        await until(
          async () => server.output(),
          (out) => out.includes('code cache written for the next start'),
        );
    } finally {
      await stop(server);
    }
    return server;
  }

  it('is written once the server is warm, loaded by the next start, a damaged one compiled anew and replaced, and left at a stop before warm', async () => {
    const dir = mkdtempSync(path.join(BUNDLE_DIR, 'code-cache-'));
    for (const file of ['bundle.cjs', 'load.js', 'server.js']) copyFileSync(path.join(BUNDLE_DIR, file), path.join(dir, file));
    const script = path.join(dir, 'server.js');
    const db = privateDatabase('gateway-code-cache-');

    await start(script, db, 'none', true);
    expect(cacheFiles(dir)).toHaveLength(1);

    const second = await start(script, db, 'loaded', false);
    expect(second.output()).not.toContain('code cache written');

    // Bytes V8 does not accept: the bundle is compiled from its source, and the cache replaced.
    const [file] = cacheFiles(dir);
    writeFileSync(path.join(dir, file!), Buffer.alloc(4096, 7));
    await start(script, db, 'rejected', true);
    expect(cacheFiles(dir)).toEqual([file]);

    // Stopped before it is warm (a warm-up far from done): it leaves the cache on its way out.
    rmSync(path.join(dir, file!));
    const fourth = await start(script, db, 'none', false, { WARM_UP_ROUNDS: '1000' });
    expect(fourth.output()).toMatch(/"when":"shutdown".*code cache written for the next start/);
    expect(cacheFiles(dir)).toEqual([file]);
  });

  it('the build primes one for each way of starting; the first start after it uses it and leaves the fuller one', async () => {
    // A build of its own (the suite's bundle is shared with servers that leave caches in it).
    const dir = mkdtempSync(path.join(BUNDLE_DIR, 'code-cache-primed-'));
    await buildDist(dir);
    // `node dist/server.js` and npm start's flags: V8 keeps a cache per set of flags.
    expect(cacheFiles(dir).filter((f) => f.endsWith('.primed.cache'))).toHaveLength(2);
    const script = path.join(dir, 'server.js');
    const db = privateDatabase('gateway-code-cache-primed-');

    await start(script, db, 'primed', true);
    expect(cacheFiles(dir).filter((f) => !f.endsWith('.primed.cache'))).toHaveLength(1);
    await start(script, db, 'loaded', false);
  });
});
