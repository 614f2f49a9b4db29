import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
// Not collected by the suite (not *.test.ts): the failover it drives does not hold yet. Issue 60.
import { cliCommand, runCommand, spawnServer, type ServerProcess } from '../helpers/process.js';
import { haveRedis, startSentinels } from '../helpers/redis.js';
import { privateDatabase, SYNC_RESORTS } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

/**
 * Redis through Sentinel (a primary, its replica, three Sentinels: real redis-server processes)
 * under two replicas of the bundle, and the primary killed under steady requests: the replicas
 * and the keys command follow the Sentinels to the new primary, and nothing a client sees fails.
 *
 * Run by hand: npx vitest run --dir test/pending --include '**' test/pending/sentinel-failover.ts
 * What it found (2026-11-28), why it is not in the suite yet:
 * - for ~0.3 s right after the promotion, both replicas answer 401 to a key made (and seen) well
 *   before the fault: the check script finds no such key on the node it reaches then;
 * - with a run asked on both replicas right after the failover, two runs ran (the old leader had
 *   not yet seen that it lost the lease).
 */

const ADMIN = 'szg_sentinel_admin_key';

describe.skipIf(!haveRedis)('Redis through Sentinel', () => {
  it('the primary killed under steady requests: none fails; keys made and revoked after the failover hold on both replicas', async () => {
    const sentinels = await startSentinels();
    onTestFinished(() => sentinels.stop());
    const replicas: ServerProcess[] = [0, 1].map((i) =>
      spawnServer(privateDatabase('gateway-sentinel-replica-', { resorts: SYNC_RESORTS }), {
        ...sentinels.env,
        REPLICA_ID: `sentinel-${i}`,
        API_ADMIN_KEYS: ADMIN,
        API_KEYS_RATE: '1000',
      }),
    );
    onTestFinished(async () => {
      for (const r of replicas) r.child.kill('SIGKILL');
      await Promise.all(replicas.map((r) => r.exited));
    });
    onTestFailed(() => {
      for (const [i, r] of replicas.entries())
        console.error(
          `replica-${i} said:\n${r
            .output()
            .split('\n')
            .filter((l) => /"level":[456]0|redis|leader/.test(l))
            .join('\n')}`,
        );
    });
    const urls = await Promise.all(replicas.map((r) => r.url));
    const dbPath = privateDatabase('gateway-sentinel-cli-');
    const keys = (...args: string[]) => runCommand(dbPath, cliCommand('keys', ...args), sentinels.env);
    const get = (url: string, key: string) => fetch(`${url}/api/zip/05401`, { headers: { 'x-api-key': key } }).then((r) => r.status);

    // A key made through the Sentinels, seen by both replicas before the fault.
    const made = await keys('create', '--name', 'before-failover', '--rate', '100000');
    expect(made.status, made.stderr).toBe(0);
    const before = made.stdout.match(/szg_[\w-]+/)![0];
    expect(await Promise.all(urls.map((u) => get(u, before)))).toEqual([200, 200]);

    // Steady requests on both replicas from here to the end of the failover.
    const statuses: number[] = [];
    let steady = true;
    const load = (async () => {
      while (steady) {
        statuses.push(...(await Promise.all(urls.map((u) => get(u, before)))));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();

    const primary = await sentinels.primaryPort();
    sentinels.kill(primary);
    const promoted = await until(
      () => sentinels.primaryPort(),
      (port) => port !== primary,
      30_000,
      100,
    );
    expect(sentinels.ports.nodes).toContain(promoted);

    // A key made after the failover (the command finds the new primary) works on both replicas;
    // revoked, both refuse it.
    const after = await keys('create', '--name', 'after-failover');
    expect(after.status, after.stderr).toBe(0);
    const fresh = after.stdout.match(/szg_[\w-]+/)![0];
    await until(
      () => Promise.all(urls.map((u) => get(u, fresh))),
      (s) => s.every((x) => x === 200),
    );
    expect((await keys('revoke', 'after-failover')).status).toBe(0);
    expect(await Promise.all(urls.map((u) => get(u, fresh)))).toEqual([401, 401]);

    steady = false;
    await load;
    // Every request of the key both replicas had seen was answered, through the whole failover.
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
