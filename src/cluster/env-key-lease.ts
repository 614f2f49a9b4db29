import type { Logger } from '../lib/logger.js';
import type { EnvKeySync, NewKey } from '../data/repositories/keys.js';
import { PREFIX, type RedisLink } from './redis.js';
import { K, type RedisKeyStore } from './redis-keys.js';

/** How long a replica's claim on its environment keys lasts without renewal, and how often it is renewed. */
const LEASE_MS = 6000;
const LEASE_EVERY_MS = 2000;

const L = {
  /** The hashes one replica's API_KEYS and API_ADMIN_KEYS name, while its lease lasts. */
  lease: (replicaId: string) => `${PREFIX}env-lease:${replicaId}`,
  /** The replicas that hold (or held) a lease; pruned as their leases are found gone. */
  holders: `${PREFIX}env-lease-holders`,
};

/**
 * Retires (revokedBy 'environment') every active key of the environment that no live lease names.
 * One script, so no replica can register a lease between the reading and the retiring.
 * KEYS: holders, key ids; ARGV: at, prefix.
 */
const RETIRE_UNNAMED = `
local named = {}
for _, replica in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local hashes = redis.call('SMEMBERS', ARGV[2] .. 'env-lease:' .. replica)
  if #hashes == 0 then redis.call('SREM', KEYS[1], replica) end
  for _, h in ipairs(hashes) do named[h] = true end
end
local retired = 0
for _, hash in ipairs(redis.call('HVALS', KEYS[2])) do
  local key = ARGV[2] .. 'key:' .. hash
  local k = redis.call('HMGET', key, 'origin', 'revokedAt')
  if k[1] == 'env' and (not k[2] or k[2] == '') and not named[hash] then
    redis.call('HSET', key, 'revokedAt', ARGV[1], 'revokedBy', 'environment')
    retired = retired + 1
  end
end
return retired
`;

/**
 * API_KEYS and API_ADMIN_KEYS are each replica's own configuration. Each replica names its keys in
 * Redis under its REPLICA_ID, with a lease renewed every 2 s while it lives (gone 6 s after it
 * stops renewing, at once when it shuts down); registering retires only the keys of the
 * environment that no live lease names. So a replica started without a key no longer retires it
 * while another replica still names it, and a rolling change of API_KEYS ends a key once the last
 * replica naming it has restarted without it.
 */
export class EnvKeyLease {
  private keys: readonly NewKey[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly store: RedisKeyStore,
    private readonly link: RedisLink,
    private readonly replicaId: string,
    private readonly now: () => Date,
    private readonly logger: Logger,
  ) {
    link.cmd.defineCommand('szgRetireUnnamedEnvKeys', { numberOfKeys: 2, lua: RETIRE_UNNAMED });
  }

  /** The lease first, then the keys: a replica sweeping meanwhile either sees the lease or is undone by the upsert. */
  async syncEnvKeys(keys: readonly NewKey[], at: string): Promise<EnvKeySync> {
    this.keys = keys;
    await this.writeLease();
    const revokedByOperator = await this.store.upsertEnvKeys(keys);
    const cmd = this.link.cmd as unknown as { szgRetireUnnamedEnvKeys(holders: string, ids: string, at: string, prefix: string): Promise<number> };
    const retired = await cmd.szgRetireUnnamedEnvKeys(L.holders, K.ids, at, PREFIX);
    this.timer ??= setInterval(() => void this.renew(), LEASE_EVERY_MS).unref();
    return { retired, revokedByOperator };
  }

  /** Ends the lease (a replica shutting down names nothing any more). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.link.cmd
      .del(L.lease(this.replicaId))
      .catch((err: unknown) =>
        this.logger.warn({ err, replica: this.replicaId }, "this replica's lease on its API_KEYS could not be ended: it runs out by itself"),
      );
  }

  private async writeLease(): Promise<void> {
    const lease = L.lease(this.replicaId);
    const tx = this.link.cmd.multi().del(lease);
    if (this.keys.length > 0)
      tx.sadd(
        lease,
        this.keys.map((k) => k.keyHash),
      )
        .pexpire(lease, LEASE_MS)
        .sadd(L.holders, this.replicaId);
    await tx.exec();
  }

  private async renew(): Promise<void> {
    if (this.stopped || this.keys.length === 0) return;
    try {
      if ((await this.link.cmd.pexpire(L.lease(this.replicaId), LEASE_MS)) === 1) return;
      // Gone: this replica was away from Redis, or stalled, past its lease, and another replica
      // may have retired its keys meanwhile (or Redis lost its data): name them again.
      await this.syncEnvKeys(this.keys, this.now().toISOString());
      this.logger.warn({ replica: this.replicaId }, "this replica's lease on its API_KEYS had run out: the keys are registered again");
    } catch {
      // Redis unreachable: the keys are registered again when it is back (start.ts).
    }
  }
}
