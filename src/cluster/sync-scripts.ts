import type { Redis } from 'ioredis';

/**
 * The atomic steps of sync across replicas, as Lua scripts Redis runs whole: nothing another
 * replica does can come between a check and the write that depends on it.
 */

/** Renews the lease only if we still hold it. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;

/**
 * Takes the lease if nobody holds it, or if this replica does without knowing (its SET was run by
 * a Redis that woke after the command had timed out here): else nobody would lead until it ran out.
 */
const SEEK = `local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/**
 * Stores a published window unless a newer one is there (a leader that lost its lease may finish
 * its run after the next leader's), and announces it. KEYS: window, version; ARGV: the gzipped
 * window, its run id, the channel.
 */
const SHARE_WINDOW = `if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1`;

/**
 * Puts a finished run in the shared history (newest first) in place of any record of the same run:
 * the replica that ran it knows its outcome better than one that took the lease over while Redis
 * was away and marked it FAILED. KEYS[1]: runs; ARGV[1]: the record, [2]: its id, [6]: the
 * history's length.
 */
const PLACE_RUN = `local record, id = ARGV[1], tonumber(ARGV[2])
for _, r in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if cjson.decode(r).id == id then redis.call('LREM', KEYS[1], 0, r) end
end
local placed = false
for _, r in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if cjson.decode(r).id < id then
    redis.call('LINSERT', KEYS[1], 'BEFORE', r, record)
    placed = true
    break
  end
end
if not placed then redis.call('RPUSH', KEYS[1], record) end
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[6]) - 1)
`;

/** PLACE_RUN alone, for a run finished while Redis was away and followed by another since (KEYS[1], ARGV[1], [2], [6] as there). */
const PUT_RUN = `${PLACE_RUN}
return 1`;

/**
 * PLACE_RUN, then writes the status too, unless another replica's run has begun since (a status
 * at rest on an older run, such as one a replica marked FAILED while Redis was away, is replaced). KEYS: runs,
 * status; ARGV: the record, its id, the status, this replica, whether it leads, the history's
 * length, the channel.
 */
const FINISH_RUN = `${PLACE_RUN}
local current = redis.call('GET', KEYS[2])
if current and ARGV[5] ~= '1' then
  local s = cjson.decode(current)
  local function about(run) return type(run) == 'table' and run.id == id end
  local behind = s.state ~= 'RUNNING' and (type(s.lastRun) ~= 'table' or s.lastRun.id < id)
  if s.owner ~= ARGV[4] and not about(s.currentRun) and not about(s.lastRun) and not behind then return 0 end
end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[7], ARGV[3])
return 1`;

/**
 * Marks a run FAILED for a leader that stopped, unless its status has moved on meanwhile (that
 * replica came back and shared its outcome). KEYS: status, runs; ARGV: the run's owner, its id, the
 * FAILED record, the status to set, the history's length, the channel.
 */
const MARK_INTERRUPTED = `local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local s = cjson.decode(current)
if s.state ~= 'RUNNING' or s.owner ~= ARGV[1] or type(s.currentRun) ~= 'table' or s.currentRun.id ~= tonumber(ARGV[2]) then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[3])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
redis.call('SET', KEYS[1], ARGV[4])
redis.call('PUBLISH', ARGV[6], ARGV[4])
return 1`;

export type SyncRedis = Redis & {
  szgRenewLease(lease: string, me: string, ms: number): Promise<number>;
  szgSeekLease(lease: string, me: string, ms: number): Promise<number>;
  szgShareWindow(window: string, version: string, gz: Buffer, runId: number, channel: string): Promise<number>;
  szgFinishRun(
    runs: string,
    status: string,
    record: string,
    id: number,
    json: string,
    me: string,
    leads: string,
    history: number,
    channel: string,
  ): Promise<number>;
  szgPutRun(runs: string, status: string, record: string, id: number, _status: '', _me: '', _leads: '', history: number): Promise<number>;
  szgMarkInterrupted(status: string, runs: string, owner: string, id: number, record: string, json: string, history: number, channel: string): Promise<number>;
};

/** The connection with the scripts defined on it (each sent once, then run by its hash). */
export function defineSyncScripts(cmd: Redis): SyncRedis {
  cmd.defineCommand('szgRenewLease', { numberOfKeys: 1, lua: RENEW });
  cmd.defineCommand('szgSeekLease', { numberOfKeys: 1, lua: SEEK });
  cmd.defineCommand('szgShareWindow', { numberOfKeys: 2, lua: SHARE_WINDOW });
  cmd.defineCommand('szgPutRun', { numberOfKeys: 2, lua: PUT_RUN });
  cmd.defineCommand('szgFinishRun', { numberOfKeys: 2, lua: FINISH_RUN });
  cmd.defineCommand('szgMarkInterrupted', { numberOfKeys: 2, lua: MARK_INTERRUPTED });
  return cmd as SyncRedis;
}
