import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDir } from './helpers/server.js';
import { until } from './helpers/wait.js';

/**
 * The container image of examples/replicas, as far as this machine can build it (it has no Docker
 * engine): its build steps (examples/replicas/image.sh, which the Dockerfile runs) in a copy of the
 * repository, and the result started as the image starts it (npm start, NODE_ENV=production, a
 * non-root user's environment). The Dockerfile itself is held to what the README promises.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const KEY = 'szg_image_test_key_0123456789abcdef';
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function run(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) =>
    execFile(command, args, { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    ),
  );
}

/** The repository as the Dockerfile's COPY sees it (tracked and new files, nothing ignored), node_modules as npm ci left it. */
function copyOfRepository(): string {
  const dir = testDir('image-src-');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    if (!existsSync(path.join(ROOT, f))) continue;
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  // Hard links: the copy's prune removes its links, never the files. npm's own record of the tree
  // is written anew there, so the copy gets a file of its own instead of a link to ours.
  execFileSync('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules')]);
  rmSync(path.join(dir, 'node_modules', '.package-lock.json'));
  return dir;
}

describe('the image of examples/replicas', () => {
  it('its build steps give production dependencies only, dist/ with a primed code cache, and a server that starts as the image starts it and passes its health check', async () => {
    const ours = path.join(ROOT, 'node_modules', '.package-lock.json');
    const before = sha(ours);
    const src = copyOfRepository();
    const out = testDir('image-app-');
    const built = await run('sh', ['examples/replicas/image.sh', out], src);
    expect(built.code, built.output.slice(-2000)).toBe(0);
    // Our own node_modules is as it was: the copy's prune touched only the copy.
    expect(sha(ours)).toBe(before);
    expect(existsSync(path.join(ROOT, 'node_modules', 'vitest', 'package.json'))).toBe(true);

    const installed = readdirSync(path.join(out, 'node_modules'));
    for (const production of ['better-sqlite3', 'graphql', 'graphql-ws', 'pino', 'tsx']) expect(installed, production).toContain(production);
    for (const development of ['vitest', 'playwright-core', 'autocannon', 'mercurius', '@stryker-mutator/core', '@biomejs/biome', 'fast-check', 'fastify']) {
      expect(existsSync(path.join(out, 'node_modules', development, 'package.json')), development).toBe(false);
    }
    expect(readdirSync(path.join(out, 'dist')).some((f) => f.endsWith('.primed.cache'))).toBe(true);
    expect(existsSync(path.join(out, 'src', 'cli', 'keys.ts'))).toBe(true);

    const data = testDir('image-data-');
    const server = spawn('npm', ['start', '--silent'], {
      cwd: out,
      env: {
        PATH: process.env.PATH!,
        HOME: out,
        NODE_ENV: 'production',
        GATEWAY_NO_REBUILD: '1',
        HOST: '127.0.0.1',
        PORT: '0',
        DB_PATH: path.join(data, 'gateway.sqlite'),
        API_KEYS: KEY,
        SYNC_INTERVAL_MINUTES: '0',
        WARM_UP_ROUNDS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own: npm, its shell and the server are ended together (a SIGTERM
      // to npm alone left the server running after the test).
      detached: true,
    });
    let log = '';
    server.stdout.on('data', (d: Buffer) => void (log += d));
    server.stderr.on('data', (d: Buffer) => void (log += d));
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    try {
      const base = (await until(
        async () => /serving REST at (http:\/\/[\d.:]+)\/api/.exec(log)?.[1],
        (url) => url !== undefined,
        60_000,
      )) as string;
      expect(log).not.toMatch(/building dist/);
      expect(log).toMatch(/"codeCache":"(primed|loaded)"/);
      await until(
        async () => (await fetch(`${base}/readyz`)).status,
        (s) => s === 200,
        60_000,
      );
      expect((await fetch(`${base}/api/zip/90210`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
      // The Dockerfile's HEALTHCHECK, as Docker runs it (its port made ours).
      const dockerfile = readFileSync(path.join(ROOT, 'examples', 'replicas', 'Dockerfile'), 'utf8');
      const check = /CMD (node -e "[^\n]+")/
        .exec(dockerfile.slice(dockerfile.indexOf('HEALTHCHECK')))![1]!
        .replace('127.0.0.1:4000', base.replace('http://', ''));
      expect((await run('sh', ['-c', check], out)).code).toBe(0);
    } finally {
      process.kill(-server.pid!, 'SIGTERM');
      await exited;
      // Every process of the group is gone, the server included.
      await until(
        async () => {
          try {
            process.kill(-server.pid!, 0);
            return false;
          } catch {
            return true;
          }
        },
        (gone) => gone,
        20_000,
      );
    }
  }, 300_000);

  it('the Dockerfile builds in one stage and runs from another, as a non-root user, with a health check on /readyz; compose has no default admin key', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'examples', 'replicas', 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^RUN sh examples\/replicas\/image.sh \/app$/m);
    expect(dockerfile).toMatch(/^COPY --from=build /m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/readyz/m);
    expect(dockerfile).toMatch(/NODE_ENV=production/);
    const nginx = readFileSync(path.join(ROOT, 'examples', 'replicas', 'nginx.conf'), 'utf8');
    // It says what it does: passive checks only.
    expect(nginx).toMatch(/checks passively/);
    expect(nginx).not.toMatch(/\/readyz takes (one|a replica) out/);
  });
});
