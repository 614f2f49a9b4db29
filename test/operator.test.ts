import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { VERSION_CHECK_MS } from '../src/auth/guard.js';
import { movableClock, runNow } from './helpers/clock.js';
import { privateDatabase, startTestServer, TEST_KEY } from './helpers/server.js';
import { cliCommand, keysCli, runCommand, spawnServer, type ServerProcess } from './helpers/process.js';
import { haveRedis, startRedis } from './helpers/redis.js';

/**
 * Keys and the database as an operator meets them, against the bundle and its command-line tools:
 * a rebuild never strands a running server, keys from the environment live only while it names
 * them, and the keys command says what is wrong in a sentence.
 */

const zip = (base: string, key: string) => fetch(`${base}/api/zip/90210`, { headers: { 'x-api-key': key } }).then((r) => r.status);

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

const buildDb = (dbPath: string) => runCommand(dbPath, cliCommand('build-db'));
const keyOf = (stdout: string) => stdout.match(/szg_[\w-]+/)![0];
const usageOf = (dbPath: string, name: string) => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (
      db.prepare('SELECT coalesce(sum(u.requests), 0) AS n FROM api_keys k LEFT JOIN key_usage u ON u.key_id = k.id WHERE k.name = ?').get(name) as {
        n: number;
      }
    ).n;
  } finally {
    db.close();
  }
};

describe('a rebuild never strands a running server', () => {
  it('npm run build:db refuses while a server holds the database, naming its process; keys created and revoked afterwards take effect on it', async () => {
    const dbPath = privateDatabase('gateway-rebuild-');
    // In this process, on a clock the test moves: the server looks for another writer's changes
    // (a revocation) every VERSION_CHECK_MS of its clock, not whenever the CLI happened to take that long.
    const clock = movableClock(runNow().toISOString());
    const app = await startTestServer({ dbPath, now: clock.now });
    try {
      const refused = await buildDb(dbPath);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`served by process ${process.pid}`);
      expect(refused.stderr).toMatch(/Stop the server first/);
      // The server still reads the file the commands write: a key made now answers, and a revocation holds.
      const key = keyOf((await keysCli(dbPath, 'create', '--name', 'after-rebuild')).stdout);
      expect(await zip(app.url, key)).toBe(200);
      expect((await keysCli(dbPath, 'revoke', 'after-rebuild')).status).toBe(0);
      clock.advance(VERSION_CHECK_MS);
      expect(await zip(app.url, key)).toBe(401);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('with the server stopped the rebuild runs, and keys and their usage come through it', async () => {
    const dbPath = privateDatabase('gateway-rebuild-');
    const key = keyOf((await keysCli(dbPath, 'create', '--name', 'counted')).stdout);
    const server = spawnServer(dbPath);
    try {
      const base = await server.url;
      for (let i = 0; i < 3; i++) expect(await zip(base, key)).toBe(200);
    } finally {
      await stop(server);
    }
    expect(usageOf(dbPath, 'counted')).toBe(3);
    const built = await buildDb(dbPath);
    expect(built.status, built.stderr).toBe(0);
    expect(usageOf(dbPath, 'counted')).toBe(3);
    const again = spawnServer(dbPath);
    try {
      expect(await zip(await again.url, key)).toBe(200);
    } finally {
      await stop(again);
    }
    expect(usageOf(dbPath, 'counted')).toBe(4);
  }, 60_000);

  it('a server killed with SIGKILL holds nothing: the next rebuild runs', async () => {
    const dbPath = privateDatabase('gateway-rebuild-');
    const server = spawnServer(dbPath);
    await server.url;
    server.child.kill('SIGKILL');
    await server.exited;
    const built = await buildDb(dbPath);
    expect(built.status, built.stderr).toBe(0);
  }, 60_000);

  it('npm run import refuses too when it would rebuild a served database (one of older sources)', async () => {
    const dbPath = privateDatabase('gateway-rebuild-');
    const server = spawnServer(dbPath);
    try {
      await server.url;
      // As if the catalogue had changed since the server started: the next tool to open it would rebuild.
      const db = new Database(dbPath);
      db.prepare("UPDATE meta SET value = 'older' WHERE key = 'sources.fingerprint'").run();
      db.close();
      const areas = path.join(import.meta.dirname, 'fixtures', 'openskimap', 'ski_areas.geojson');
      const refused = await runCommand(dbPath, cliCommand('import', areas));
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`served by process ${server.child.pid}`);
    } finally {
      await stop(server);
    }
  }, 60_000);
});

describe('what a start leaves beside the database', () => {
  const ROOT = path.resolve(import.meta.dirname, '..');
  const holders = (dbPath: string) => readdirSync(path.dirname(dbPath)).filter((f) => f.includes('.holder-'));

  it('every file a start writes beside the database (the first admin key, its holder file) is git-ignored where npm start puts it', async () => {
    const dbPath = privateDatabase('gateway-leaves-');
    const before = new Set(readdirSync(path.dirname(dbPath)));
    // No API_KEYS: the first start makes the first key and writes it to a file.
    const server = spawnServer(dbPath);
    try {
      await server.url;
      const written = readdirSync(path.dirname(dbPath)).filter((f) => !before.has(f));
      expect(written).toContain('first-api-key.txt');
      expect(written).toContain(`gateway.sqlite.holder-server-${server.child.pid}-1`);
      // npm start's database is data/gateway.sqlite: each file as it would be there.
      const inData = written.map((f) => `data/${f}`);
      // check-ignore prints the paths that are ignored (and exits 1 when none is).
      const ignored = spawnSync('git', ['check-ignore', '--no-index', ...inData], { cwd: ROOT, encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean);
      expect(ignored.sort()).toEqual(inData.sort());
    } finally {
      await stop(server);
    }
  }, 60_000);

  it('a start removes the holder files of servers that died: one killed with SIGKILL, and one whose process id came round again', async () => {
    const dbPath = privateDatabase('gateway-leaves-');
    const killed = spawnServer(dbPath, { API_KEYS: TEST_KEY });
    await killed.url;
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(holders(dbPath)).toEqual([`gateway.sqlite.holder-server-${killed.child.pid}-1`]);
    // As a killed server restarted under the same process id leaves it (a container's server is
    // often pid 1 at every start): this process's id, in a file this process never wrote.
    const stale = `gateway.sqlite.holder-server-${process.pid}-0`;
    writeFileSync(
      path.join(path.dirname(dbPath), stale),
      JSON.stringify({ role: 'server', pid: process.pid, host: hostname(), since: '2027-01-01T00:00:00.000Z' }),
    );
    const app = await startTestServer({ dbPath });
    try {
      const own = holders(dbPath);
      expect(own).toHaveLength(1);
      expect(own[0]).toMatch(new RegExp(`^gateway\\.sqlite\\.holder-server-${process.pid}-[1-9]\\d*$`));
    } finally {
      await app.close();
    }
    expect(holders(dbPath)).toEqual([]);
  }, 60_000);

  it('a start that cannot listen (its port taken) closes what it opened: no holder file stays, and the next start serves', async () => {
    const dbPath = privateDatabase('gateway-leaves-');
    const taken = await startTestServer();
    try {
      await expect(startTestServer({ dbPath, config: { port: taken.port } })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(holders(dbPath)).toEqual([]);
      const app = await startTestServer({ dbPath });
      try {
        expect((await fetch(`${app.url}/api/zip/90210`, { headers: { 'x-api-key': TEST_KEY } })).status).toBe(200);
      } finally {
        await app.close();
      }
    } finally {
      await taken.close();
    }
  }, 60_000);
});

describe('keys from the environment live while it names them', () => {
  it('a key of API_KEYS answers while it is set, is refused once a start goes without it, and answers again when it is back', async () => {
    const dbPath = privateDatabase('gateway-env-keys-');
    const envKey = 'envkey-0123456789abcdef0123';
    const run = async (env: Record<string, string>, expected: number) => {
      const server = spawnServer(dbPath, env);
      try {
        expect(await zip(await server.url, envKey)).toBe(expected);
      } finally {
        await stop(server);
      }
      return server;
    };
    await run({ API_KEYS: envKey }, 200);
    const without = await run({ API_KEYS: TEST_KEY }, 401);
    expect(without.output()).toMatch(/1 key from an earlier API_KEYS or API_ADMIN_KEYS retired/);
    await run({ API_KEYS: `${envKey},${TEST_KEY}` }, 200);
    // API_ADMIN_KEYS the same way.
    await run({ API_KEYS: TEST_KEY, API_ADMIN_KEYS: envKey }, 200);
    await run({ API_KEYS: TEST_KEY }, 401);
  }, 90_000);

  it('keys revoke of a key of API_KEYS sticks: a start with it keeps it revoked, and its log says to remove it from the environment', async () => {
    const dbPath = privateDatabase('gateway-env-keys-');
    const envKey = 'envkey-revoked-by-the-operator';
    const name = `env-${createHash('sha256').update(envKey).digest('hex').slice(0, 12)}`;
    const first = spawnServer(dbPath, { API_KEYS: envKey });
    expect(await zip(await first.url, envKey)).toBe(200);
    await stop(first);
    const revoked = await keysCli(dbPath, 'revoke', name);
    expect(revoked.stdout).toMatch(
      new RegExp(`^revoked key "${name}" \\(id \\d+\\)\\n  it comes from API_KEYS or API_ADMIN_KEYS: it stays revoked; remove it from there too\\n$`),
    );
    const again = spawnServer(dbPath, { API_KEYS: envKey });
    try {
      expect(await zip(await again.url, envKey)).toBe(401);
      expect(again.output()).toMatch(
        /API_KEYS or API_ADMIN_KEYS names key \\"env-[0-9a-f]{12}\\" \(id \d+\), revoked with npm run keys: it stays revoked; remove it from the environment/,
      );
    } finally {
      await stop(again);
    }
    expect((await keysCli(dbPath, 'list')).stdout).toMatch(new RegExp(`${name} .* revoked \\S+ .*from API_KEYS`));
  }, 60_000);

  it('with NODE_ENV=production a placeholder or short key stops the start, naming the setting', async () => {
    for (const key of ['change-me-admin-key', 'short-key']) {
      const server = spawnServer(privateDatabase('gateway-env-keys-'), { NODE_ENV: 'production', API_ADMIN_KEYS: key });
      const { code } = await server.exited;
      expect(code).not.toBe(0);
      expect(server.errors()).toMatch(
        /API_KEYS \/ API_ADMIN_KEYS: with NODE_ENV=production a key must be at least 16 characters and not an example's placeholder/,
      );
      expect(server.errors()).not.toContain(key);
      // A sentence for the operator, not a stack trace.
      expect(server.errors()).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it('the compose example has no default admin key: it refuses to start without ADMIN_KEY', () => {
    const compose = readFileSync(path.join(import.meta.dirname, '..', 'examples', 'replicas', 'compose.yaml'), 'utf8');
    const admins = compose.match(/API_ADMIN_KEYS: "[^"]*"/g)!;
    expect(admins).toHaveLength(3);
    for (const a of admins) expect(a).toMatch(/^API_ADMIN_KEYS: "\$\{ADMIN_KEY:\?[^}]+\}"$/);
  });
});

describe('the keys command tells the truth', () => {
  it('a name already taken is a sentence with the way out; --replace revokes the old key and makes a new one under the name', async () => {
    const dbPath = privateDatabase('gateway-keys-cli-');
    const first = keyOf((await keysCli(dbPath, 'create', '--name', 'me')).stdout);
    const again = await keysCli(dbPath, 'create', '--name', 'me');
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(
      /^A key named "me" exists already \(id \d+, created [^)]+\)\. Choose another --name, or make a new key under this name with --replace \(the old key is revoked\)\.\n$/,
    );
    expect(again.stderr).not.toMatch(/UNIQUE|constraint|SQLITE/);
    const replaced = await keysCli(dbPath, 'create', '--name', 'me', '--replace');
    expect(replaced.status).toBe(0);
    const second = keyOf(replaced.stdout);
    const server = spawnServer(dbPath);
    try {
      const base = await server.url;
      expect(await zip(base, first)).toBe(401);
      expect(await zip(base, second)).toBe(200);
    } finally {
      await stop(server);
    }
    const list = (await keysCli(dbPath, 'list')).stdout;
    expect(list).toMatch(/me~replaced-\d+ .* revoked/);
  }, 60_000);

  it('revoking a key nobody has is a sentence, not a SQL error', async () => {
    const r = await keysCli(privateDatabase('gateway-keys-cli-'), 'revoke', 'nobody');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Nothing was revoked:\n {2}no key is named "nobody"\n/);
  });
});

describe.skipIf(!haveRedis)('the keys command and replicas', () => {
  it("against a replica's database without REDIS_URL it refuses and says why; with it, it succeeds, says nothing else, and a replica accepts the key it made", async () => {
    const redis = await startRedis();
    const dbPath = privateDatabase('gateway-keys-replica-');
    try {
      const replica = spawnServer(dbPath, { REDIS_URL: redis.url, API_KEYS: TEST_KEY });
      await replica.url;
      await stop(replica);
      const refused = await keysCli(dbPath, 'create', '--name', 'partner');
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/belongs to a replica: its server keeps keys in Redis \(REDIS_URL\)/);
      const made = await runCommand(dbPath, cliCommand('keys', 'create', '--name', 'partner'), { REDIS_URL: redis.url });
      expect(made.status, made.stderr).toBe(0);
      expect(made.stderr).toBe('');
      expect(made.stdout).toMatch(/created key "partner"/);
      // The key it made is one a replica accepts (it checks keys in Redis).
      const again = spawnServer(dbPath, { REDIS_URL: redis.url, API_KEYS: TEST_KEY });
      try {
        expect(await zip(await again.url, keyOf(made.stdout))).toBe(200);
      } finally {
        await stop(again);
      }
    } finally {
      await redis.stop();
    }
  }, 60_000);
});
