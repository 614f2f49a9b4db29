import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveRedis, startRedis, type TestRedis } from './helpers/redis.js';
import { connectRedis, waitUntilUp, type RedisLink } from '../src/cluster/redis.js';
import { defineSyncScripts, type SyncRedis } from '../src/cluster/sync-scripts.js';
import { createLogger } from '../src/lib/logger.js';

/** The scripts sync runs in Redis, against a real Redis, for the orders of events replicas cannot be made to meet on cue. */
describe.skipIf(!haveRedis)('sync across replicas, in Redis', () => {
  let redis: TestRedis;
  let link: RedisLink;
  let cmd: SyncRedis;
  beforeAll(async () => {
    redis = await startRedis();
    link = connectRedis({ kind: 'url', url: redis.url }, createLogger('silent'));
    expect(await waitUntilUp(link, 5000)).toBe(true);
    cmd = defineSyncScripts(link.cmd);
  });
  afterAll(async () => {
    await link?.close();
    await redis?.stop();
  });

  const run = (id: number, status: string) => ({
    id,
    trigger: 'MANUAL',
    status,
    startedAt: `2027-01-0${id}T00:00:00Z`,
    finishedAt: `2027-01-0${id}T00:01:00Z`,
  });
  const finish = (record: object & { id: number }, status: object, me: string, leads: boolean) =>
    cmd.szgFinishRun('runs', 'status', JSON.stringify(record), record.id, JSON.stringify({ ...status, owner: me }), me, leads ? '1' : '0', 20, 'channel');

  it('a run finished while Redis was away, after another replica marked the run before it FAILED, becomes the status', async () => {
    await cmd.flushall();
    // Replica b took the lease while Redis was away from a, and marked a's run 1 FAILED.
    await cmd.set('status', JSON.stringify({ state: 'IDLE', owner: 'b', currentRun: null, lastRun: run(1, 'FAILED') }));
    await cmd.lpush('runs', JSON.stringify(run(1, 'FAILED')));
    // a, no longer leading, shares runs 1 and 2, both finished meanwhile.
    await cmd.szgPutRun('runs', 'status', JSON.stringify(run(1, 'SUCCEEDED')), 1, '', '', '', 20);
    const status = { state: 'IDLE', currentRun: null, lastRun: run(2, 'SUCCEEDED') };
    expect(await finish(run(2, 'SUCCEEDED'), status, 'a', false)).toBe(1);
    expect(JSON.parse((await cmd.get('status'))!)).toEqual({ ...status, owner: 'a' });
    expect((await cmd.lrange('runs', 0, -1)).map((r) => JSON.parse(r))).toEqual([run(2, 'SUCCEEDED'), run(1, 'SUCCEEDED')]);
  });

  it('the lease: taken when free, kept from others, and taken by the replica it names even when that replica never heard its SET answered', async () => {
    await cmd.flushall();
    expect(await cmd.szgSeekLease('lease', 'a', 6000)).toBe(1);
    expect(await cmd.szgSeekLease('lease', 'b', 6000)).toBe(0);
    expect(await cmd.get('lease')).toBe('a');
    // a's SET ran in a Redis that woke after a had given the command up: a finds it is a's.
    await cmd.set('lease', 'a', 'PX', 100);
    expect(await cmd.szgSeekLease('lease', 'a', 6000)).toBe(1);
    expect(await cmd.pttl('lease')).toBeGreaterThan(5000);
  });

  it('a run another replica has begun since keeps the status: a late finish goes into the history only', async () => {
    await cmd.flushall();
    const running = { state: 'RUNNING', owner: 'b', currentRun: run(3, 'RUNNING'), lastRun: run(1, 'FAILED') };
    await cmd.set('status', JSON.stringify(running));
    expect(await finish(run(2, 'SUCCEEDED'), { state: 'IDLE', currentRun: null, lastRun: run(2, 'SUCCEEDED') }, 'a', false)).toBe(0);
    expect(JSON.parse((await cmd.get('status'))!)).toEqual(running);
    expect((await cmd.lrange('runs', 0, -1)).map((r) => JSON.parse(r).id)).toEqual([2]);
  });
});
