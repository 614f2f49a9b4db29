import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { haveNginx, startNginx } from './helpers/nginx.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';
import { freePort, haveRedis, startRedis } from './helpers/redis.js';
import { privateDatabase } from './helpers/server.js';
import { until } from './helpers/wait.js';

/**
 * A rolling restart as operators do one: two replicas behind Debian's nginx (the example's
 * configuration, idempotent requests retried on the next replica), sharing a real Redis, each
 * stopped with SIGTERM and started again on its port and database in turn, under steady requests
 * from several clients. Not one fails.
 */

const ADMIN = 'szg_rolling_admin_key';
const PATHS = ['/api/zip/05401', '/api/zip/90210/nearby?radius=10&limit=5', '/api/resorts', '/api/states'];

describe.skipIf(!haveRedis || !haveNginx)('a rolling restart behind nginx', () => {
  it('SIGTERM and start again, one replica after the other, under steady requests: none fails', async () => {
    const redis = await startRedis();
    onTestFinished(() => redis.stop());
    const ports = [await freePort(), await freePort()];
    const dbs = ports.map(() => privateDatabase('gateway-rolling-'));
    const start = (i: number) =>
      spawnServer(dbs[i]!, {
        PORT: String(ports[i]),
        REDIS_URL: redis.url,
        REPLICA_ID: `rolling-${i}`,
        API_ADMIN_KEYS: ADMIN,
        API_KEYS_RATE: '100000',
        API_KEYS_QUOTA: '1000000000',
      });
    const replicas: ServerProcess[] = ports.map((_, i) => start(i));
    onTestFinished(async () => {
      for (const r of replicas) r.child.kill('SIGKILL');
      await Promise.all(replicas.map((r) => r.exited));
    });
    await Promise.all(replicas.map((r) => r.url));
    const nginx = await startNginx(ports);
    onTestFinished(() => nginx.stop());
    onTestFailed(() => {
      console.error(`replicas on ${ports.join(', ')}; nginx said:\n${nginx.errors()}`);
      for (const [i, r] of replicas.entries()) console.error(`replica-${i} said:\n${r.output().split('\n').slice(-15).join('\n')}`);
    });

    // Four clients, each sending one request after another, until the restarts are done.
    const failures: string[] = [];
    let answered = 0;
    let steady = true;
    onTestFinished(() => {
      steady = false;
    });
    const clients = Array.from({ length: 4 }, async (_, c) => {
      for (let n = 0; steady; n++) {
        const p = PATHS[(c + n) % PATHS.length]!;
        try {
          const res = await fetch(nginx.url + p, { headers: { 'x-api-key': ADMIN } });
          await res.arrayBuffer();
          if (res.status === 200) answered++;
          else failures.push(`${p}: ${res.status}`);
        } catch (err) {
          failures.push(`${p}: ${(err as Error).message}`);
        }
      }
    });

    const ready = (i: number) =>
      until(
        () =>
          fetch(`http://127.0.0.1:${ports[i]}/readyz`).then(
            (r) => r.status,
            () => 0,
          ),
        (s) => s === 200,
        30_000,
      );
    // Requests nginx has passed to a replica since it started (its own count, /metrics).
    const served = async (i: number) => {
      const res = await fetch(`http://127.0.0.1:${ports[i]}/metrics`, { headers: { 'x-api-key': ADMIN } }).catch(() => null);
      if (res?.status !== 200) return 0;
      const lines = (await res.text()).split('\n').filter((l) => l.startsWith('http_requests_total{route="/api/'));
      return lines.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    };
    for (const i of [0, 1]) {
      replicas[i]!.child.kill('SIGTERM');
      expect((await replicas[i]!.exited).code).toBe(0);
      replicas[i] = start(i);
      await replicas[i]!.url;
      await ready(i);
      // As an operator would: the next replica goes only once nginx sends this one requests again
      // (nginx checks passively: it tries a replica it left out again after fail_timeout).
      await until(
        () => served(i),
        (n) => n > 20,
        30_000,
      );
    }
    // Requests go on through both replicas once more before the clients stop.
    const servedAfter = answered;
    await until(
      async () => answered,
      (n) => n > servedAfter + 40,
    );
    steady = false;
    await Promise.all(clients);
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(100);
    // Two stops, two starts of a process and nginx taking each back: more than the default 30 s on
    // a busy 2-core machine.
  }, 90_000);
});
