import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { hashApiKey } from '../auth/api-key.js';
import {
  allowed,
  type Counted,
  deny,
  malformedKey,
  monthOf,
  policyOf,
  quotaUsedUp,
  rateLimited,
  revokedKey,
  standingOf,
  unknownKey,
  type GuardResult,
} from '../auth/guard-answers.js';
import type { Problem } from '../lib/errors.js';
import type { ApiKeyRecord, UsageBatch } from '../data/repositories/keys.js';
import type { Logger } from '../lib/logger.js';
import type { RedisKeyStore } from './redis-keys.js';

/**
 * The key check for replicas: every request is checked and counted in Redis (RedisKeyStore), so
 * quotas and rates hold across the cluster and a revocation everywhere at once.
 *
 * When Redis is unreachable the replica keeps serving the keys it has seen (their records as last
 * read), counting their seconds and month in memory from the last count Redis gave — so a key can
 * get up to one replica's worth of extra requests while Redis is away — and refuses keys it has
 * never seen with a 503 (it cannot tell whether they exist). /readyz and the log say so. What it
 * answered meanwhile is added to the counts in Redis once Redis answers again.
 */
export class ClusterGuard {
  private readonly hashes = new LRUCache<string, string>({ max: 10_000 });
  /** Requests answered while Redis was away, by key and month ("id hash month"), not yet in a batch. */
  private readonly uncounted = new Map<string, number>();
  /** Batches made of them, sent until Redis has each (once: see RedisKeyStore.addUsage). */
  private readonly batches: UsageBatch[] = [];
  private counting = false;
  private readonly seen = new LRUCache<string, { key: ApiKeyRecord; used: number; month: string; second: number; inSecond: number }>({ max: 10_000 });

  constructor(
    private readonly store: RedisKeyStore,
    private readonly now: () => Date,
    private readonly enabled: boolean,
    private readonly logger: Logger,
    /** Told when every batch is in Redis (a store of the ones a previous run left can forget them). */
    private readonly allCounted: () => void = () => {},
    /** Ids for batches of requests counted here, unique across replicas and restarts. */
    private readonly newBatchId: () => string = randomUUID,
  ) {}

  async check(presented: string | string[] | undefined, counted: Counted = 'request'): Promise<GuardResult> {
    if (!this.enabled) return { ok: true, key: null, headers: [] };
    const malformed = malformedKey(presented);
    if (malformed) return malformed;
    const text = presented as string;
    let hash = this.hashes.get(text);
    if (!hash) this.hashes.set(text, (hash = hashApiKey(text)));
    const now = this.now();
    const month = monthOf(now);
    const second = Math.floor(now.getTime() / 1000);
    let outcome: Awaited<ReturnType<RedisKeyStore['check']>>;
    try {
      outcome = await this.store.check(hash, month, second, counted);
    } catch (err) {
      return this.offline(hash, now, month, second, counted, err as Error);
    }
    if (outcome.kind === 'unknown') {
      this.seen.delete(hash);
      return unknownKey();
    }
    const { key, used } = outcome;
    const policy = policyOf(key, now);
    if (outcome.kind === 'revoked') {
      this.seen.delete(hash);
      return revokedKey();
    }
    this.seen.set(hash, { key, used, month, second, inSecond: 0 });
    void this.countOffline();
    if (outcome.kind === 'rate-limited') return rateLimited(key, policy);
    if (outcome.kind === 'quota-used-up') return quotaUsedUp(key, policy, now);
    return allowed(key, used, policy, now);
  }

  /**
   * Learns these keys from Redis as a check would, counting nothing: the replica's own keys (its
   * environment's) are then served while Redis is away even before their first request here.
   */
  async know(hashes: readonly string[]): Promise<void> {
    if (!this.enabled || hashes.length === 0) return;
    const now = this.now();
    const month = monthOf(now);
    const wanted = new Set(hashes);
    try {
      for (const key of await this.store.list(month))
        if (wanted.has(key.keyHash) && !key.revokedAt) this.seen.set(key.keyHash, { key, used: key.requests, month, second: 0, inSecond: 0 });
    } catch {
      // Redis away again: learnt at their first request, as any key.
    }
  }

  /**
   * Whether a key holding streams may keep them, from Redis (counting nothing). While Redis is
   * unreachable nothing can be known: the streams stay.
   */
  async standing(keyId: number): Promise<Problem | null> {
    const now = this.now();
    try {
      const found = await this.store.standing(keyId, monthOf(now));
      return standingOf(found?.key, found?.used ?? 0, now);
    } catch {
      return null;
    }
  }

  private offline(hash: string, now: Date, month: string, second: number, counted: Counted, err: Error): GuardResult {
    const known = this.seen.get(hash);
    if (!known) {
      this.logger.debug({ cause: err.message }, 'key store unreachable; unknown key refused');
      return deny(503, 'KEY_STORE_UNAVAILABLE', 'The key store is unreachable and this key has not been seen here; try again shortly.', ['retry-after', '1']);
    }
    const { key } = known;
    const policy = policyOf(key, now);
    if (known.month !== month) Object.assign(known, { month, used: 0 });
    if (known.second !== second) Object.assign(known, { second, inSecond: 0 });
    if (counted !== 'quota') {
      if (known.inSecond >= key.ratePerSecond) return rateLimited(key, policy);
      known.inSecond++;
    }
    if (counted === 'rate') return allowed(key, known.used, policy, now);
    if (known.used >= key.monthlyQuota) return quotaUsedUp(key, policy, now);
    known.used++;
    const uncounted = `${key.id} ${hash} ${month}`;
    this.uncounted.set(uncounted, (this.uncounted.get(uncounted) ?? 0) + 1);
    return allowed(key, known.used, policy, now);
  }

  /** What is still to be added to Redis, as batches: kept by a replica that stops meanwhile (KeyRepository.keepUnsentUsage). */
  unsent(): UsageBatch[] {
    this.seal();
    return [...this.batches];
  }

  /** Batches a previous run of this replica could not add, added with the first check Redis answers. */
  resume(batches: readonly UsageBatch[]): void {
    this.batches.push(...batches);
  }

  /** The requests counted here so far become batches, each with its id. */
  private seal(): void {
    for (const [entry, requests] of this.uncounted) {
      const [keyId, keyHash, month] = entry.split(' ') as [string, string, string];
      this.batches.push({ batchId: this.newBatchId(), keyId: Number(keyId), keyHash, month, requests });
    }
    this.uncounted.clear();
  }

  /**
   * Redis is back (it answered a check, or the link is ready again): the requests answered while it
   * was away are added to their keys' counts there,
   * so a month's count ends equal to the requests answered (the quota may have been passed by up
   * to what the replicas answered meanwhile, never forgotten). Each key's are one batch with an id
   * of its own: a batch whose answer was lost (Redis stalled again) is sent again with that id,
   * and Redis adds it once.
   */
  async countOffline(): Promise<void> {
    if (this.counting || (this.uncounted.size === 0 && this.batches.length === 0)) return;
    this.counting = true;
    try {
      this.seal();
      while (this.batches.length > 0) {
        const batch = this.batches[0]!;
        // Away again: the batch stays first, for the next time Redis answers a check.
        if ((await this.store.addUsage(batch)) === 'gone')
          this.logger.warn(
            { keyId: batch.keyId, requests: batch.requests },
            'redis no longer has this key (it came back without its data): its requests answered meanwhile are not counted',
          );
        this.batches.shift();
      }
      this.allCounted();
      this.logger.info('requests answered while redis was away added to their keys in redis');
    } catch {
      // Tried again after the next check Redis answers.
    } finally {
      this.counting = false;
    }
  }
}
