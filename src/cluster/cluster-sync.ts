import { EventEmitter } from 'node:events';
import type { Logger } from '../lib/logger.js';
import type { SyncRunRecord, SyncTrigger } from '../data/repositories/sync.js';
import { statusUpdates, type SyncRunner, type SyncService, type SyncStatus } from '../sync/runner.js';
import type { WindowStore } from './window-store.js';
import { decodeWindow, encodeWindow } from './window-codec.js';
import { UnavailableError } from '../lib/errors.js';
import { PREFIX, type RedisLink, waitUntilUp } from './redis.js';
import { defineSyncScripts, type SyncRedis } from './sync-scripts.js';

const K = {
  leader: `${PREFIX}sync:leader`,
  status: `${PREFIX}sync:status`,
  runs: `${PREFIX}sync:runs`,
  window: `${PREFIX}sync:window`,
  windowVersion: `${PREFIX}sync:window-version`,
  statusChannel: `${PREFIX}sync:status-events`,
  commandChannel: `${PREFIX}sync:commands`,
  /** A run asked on a replica that does not lead, waiting for the leader to take it. */
  asked: `${PREFIX}sync:asked`,
  publishedChannel: `${PREFIX}sync:published`,
};

/** How long a leader's lease lasts without renewal, and how often it is renewed (or sought). */
const LEASE_MS = 6000;
const LEASE_EVERY_MS = 2000;
/** How long a replica asked for a run waits for an unreachable Redis (a failover) before refusing. */
const REDIS_WAIT_MS = 2000;
/** Runs kept in the shared history. */
const HISTORY = 100;

interface SharedStatus extends SyncStatus {
  /** The replica that wrote it (the leader at the time). */
  owner: string;
}

export interface ClusterSyncDeps {
  link: RedisLink;
  runner: SyncRunner;
  windows: WindowStore;
  replicaId: string;
  logger: Logger;
  now: () => Date;
  /** Called once a window published by another replica has been applied here. */
  onApplied: () => void;
  /** Whether this replica's window is missing (the new leader then starts a run). */
  windowMissing: () => boolean;
}

/**
 * Sync across replicas, through Redis. One replica at a time holds the leader's lease (renewed
 * every 2 s, lost after 6 s without renewal); only it runs syncs, scheduled or asked for on any
 * replica (a non-leader passes the request on). The leader writes the status and each finished run
 * to Redis, so every replica answers /api/sync/status and /history alike, and publishes every
 * status change (subscriptions on any replica see a run's progress). After a run publishes, the
 * leader stores the published window in Redis, versioned by the run's id; every replica applies it
 * to its own SQLite in one transaction, when it is announced or, if the announcement was missed
 * (pub/sub keeps nothing for a subscriber that is reconnecting), at its next tick. A new leader
 * that finds a run still marked RUNNING by another replica marks it FAILED (that replica stopped)
 * and takes over the schedule; should that replica come back and finish the run, its outcome
 * replaces the FAILED record. What Redis could not take while away is shared when it is back.
 */
export class ClusterSync implements SyncService {
  private leader = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly events = new EventEmitter();
  private appliedVersion = 0;
  private lastRunId = 0;
  /** The newest finished run this replica has put in the shared history. */
  private sharedRunId = 0;
  private stopped = false;
  /** The command connection, with the scripts below defined on it. */
  private readonly redis: SyncRedis;
  /** A window this replica published but could not share yet (Redis was away): retried every tick. */
  private unshared: { runId: number; gz: Buffer } | null = null;
  /** Whether this replica's last status change could not be written to Redis. */
  private statusUnshared = false;
  /** Runs this replica finished while Redis was away, by id: each goes into the shared history once it is back. */
  private readonly runsUnshared = new Map<number, SyncRunRecord>();
  /** Applying one window at a time: an announcement and a tick may ask at once. */
  private applying: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ClusterSyncDeps) {
    this.events.setMaxListeners(0);
    this.redis = defineSyncScripts(deps.link.cmd);
    deps.runner.onStatus((status) => this.shareStatus(status));
    // Runs are numbered across the cluster, and only the leader runs the schedule.
    deps.runner.coordinate(this);
  }

  /** Subscribes, applies the latest published window, and starts seeking the lease. */
  async join(): Promise<void> {
    const { sub } = this.deps.link;
    sub.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    // Not awaited: with Redis down at start the subscriber holds SUBSCRIBE until it is back (and
    // subscribes again after every reconnection), and the replica serves meanwhile.
    sub
      .subscribe(K.statusChannel, K.commandChannel, K.publishedChannel)
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'could not subscribe to sync news yet: runs elsewhere are heard once Redis is back'));
    // After Redis comes back, or the subscriber reconnects: catch up with what was published
    // meanwhile. Redis back: the whole tick at once, the lease's renewal first (an outage, such as a
    // failover, has eaten into it), and a run asked meanwhile.
    this.deps.link.cmd.on('ready', () => void this.tick());
    sub.on('ready', () => void this.resubscribed());
    await this.applyLatest();
    await this.tick();
    this.timer = setInterval(() => void this.tick(), LEASE_EVERY_MS);
    this.timer.unref();
  }

  /** Only the sync leader runs the schedule. */
  mayRunScheduled(): boolean {
    return this.leader;
  }

  /** The lowest id this replica's next run may take: after every run the cluster has seen. */
  nextRunId(): number {
    return this.lastRunId + 1;
  }

  async status(): Promise<SyncStatus> {
    try {
      const raw = await this.deps.link.cmd.get(K.status);
      if (raw) return publicStatus(JSON.parse(raw) as SharedStatus, this.deps.runner.status().nextScheduledRun);
    } catch {
      // Redis unreachable: this replica's own view.
    }
    return this.deps.runner.status();
  }

  async history(limit: number): Promise<SyncRunRecord[]> {
    try {
      const raw = await this.deps.link.cmd.lrange(K.runs, 0, limit - 1);
      return raw.map((r) => JSON.parse(r) as SyncRunRecord);
    } catch {
      return this.deps.runner.history(limit);
    }
  }

  /**
   * Starts a run on the leader (here, or by asking it); answers the status once it shows. A replica
   * that cannot reach Redis and does not lead waits briefly for it (a failover), then refuses: run
   * here, its run could be a second one.
   */
  async start(trigger: SyncTrigger): Promise<SyncStatus> {
    if (await this.stillLeads()) return this.deps.runner.start(trigger);
    // A failover: the link may come and go once more while ioredis follows the new primary. The
    // wait is REDIS_WAIT_MS in all, a command that timed out included (real time, as the link's).
    const waitUntil = performance.now() + REDIS_WAIT_MS;
    for (let attempt = 1; ; attempt++) {
      if (!this.deps.link.up() && !(await waitUntilUp(this.deps.link, Math.max(0, waitUntil - performance.now()))))
        throw new UnavailableError(
          'SYNC_LEADER_UNREACHABLE',
          'Redis, through which runs are started on the sync leader, is unreachable from this replica; try again shortly.',
        );
      try {
        return await this.askLeader(trigger);
      } catch (err) {
        // A command that timed out: Redis stopped answering, and the link is made again.
        this.deps.link.failed(err);
        if (attempt === 2)
          throw new UnavailableError(
            'SYNC_LEADER_UNREACHABLE',
            `The sync leader could not be asked through Redis (${(err as Error).message}); try again shortly.`,
          );
      }
    }
  }

  /**
   * Asks the leader for a run: the request is left in Redis, where the leader takes it (once) when
   * told, or at its next tick if it missed being told (pub/sub keeps nothing for a subscriber that
   * is reconnecting). Nobody leading (the last leader stopped and its lease ran out): leads and runs.
   */
  private async askLeader(trigger: SyncTrigger): Promise<SyncStatus> {
    if (!(await this.deps.link.cmd.exists(K.leader))) {
      await this.tick();
      if (this.leader) return this.deps.runner.start(trigger);
    }
    const before = await this.status();
    if (before.state === 'RUNNING') return before;
    // Any run newer than the last one this replica knows of answers the ask.
    const ask = JSON.stringify({ trigger, after: Math.max(before.lastRun?.id ?? 0, this.lastRunId) });
    await this.deps.link.cmd
      .multi()
      .set(K.asked, ask, 'PX', LEASE_MS)
      .publish(K.commandChannel, JSON.stringify({ asked: true, from: this.deps.replicaId }))
      .exec();
    // The leader starts within a moment; wait (briefly) for the shared status to say so.
    for (let i = 0; i < 60; i++) {
      const s = await this.status();
      if (s.state === 'RUNNING' || (s.lastRun?.id ?? 0) > (before.lastRun?.id ?? 0)) return s;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.status();
  }

  /**
   * The leader takes a run asked on another replica, if one is waiting (each is taken once); a run
   * going on, or one begun since the last run the asking replica knew of (it could not see this
   * leader's status during a failover), answers it.
   */
  private async takeAsked(): Promise<void> {
    if (!(await this.stillLeads()) || !this.deps.link.up()) return;
    const raw = await this.redis.getdel(K.asked).catch(() => null);
    if (!raw) return;
    const asked = JSON.parse(raw) as { trigger: SyncTrigger; after: number };
    if (this.deps.runner.busy || this.lastRunId > asked.after) return;
    this.deps.runner.start(asked.trigger === 'SCHEDULED' ? 'SCHEDULED' : 'MANUAL');
  }

  updates(signal?: AbortSignal): AsyncGenerator<SyncStatus> {
    return statusUpdates(this.events, () => this.status(), signal);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.leader)
      await this.deps.link.cmd
        .del(K.leader)
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'the sync lease could not be given up: another replica takes it when it expires'));
    this.leader = false;
  }

  /**
   * Seeks or renews the lease (on winning it, takes over from a leader that stopped); then shares
   * what could not be shared while Redis was away (a published window, the leader's status and
   * finished run), and applies a newer window if its announcement was missed.
   */
  private async tick(): Promise<void> {
    if (this.stopped) return;
    await this.seekLease();
    if (!this.deps.link.up()) return;
    if (this.leader) await this.takeAsked();
    if (this.unshared) await this.share(this.unshared.runId, this.unshared.gz);
    // A replica that lost the lease meanwhile still puts the outcome of its finished run on record.
    if (this.statusUnshared && (this.leader || !this.deps.runner.busy)) this.shareStatus(this.deps.runner.status());
    // Pub/sub delivers at most once: a replica whose subscriber was reconnecting, or which could
    // not apply the window when it was announced, finds it here within one tick.
    await this.applyLatest();
  }

  /**
   * Whether this replica leads, checked against Redis before a run starts: a failover can lose the
   * lease's last write, and then another replica may have taken it. While Redis is unreachable a
   * leader keeps leading (its lease runs out elsewhere first).
   */
  private async stillLeads(): Promise<boolean> {
    if (!this.leader) return false;
    if (!this.deps.link.up()) return true;
    try {
      if (await this.redis.szgRenewLease(K.leader, this.deps.replicaId, LEASE_MS)) return true;
      this.leader = false;
      this.deps.logger.warn('sync leadership lost');
      return false;
    } catch {
      return true;
    }
  }

  private async seekLease(): Promise<void> {
    if (this.leader) {
      await this.stillLeads();
      return;
    }
    const cmd = this.redis;
    try {
      if (!(await cmd.szgSeekLease(K.leader, this.deps.replicaId, LEASE_MS))) return;
      this.leader = true;
      this.deps.logger.info({ replica: this.deps.replicaId }, 'this replica is now the sync leader');
      await this.takeOver();
    } catch {
      // Redis unreachable: a leader keeps leading until its lease runs out elsewhere; nobody new leads.
    }
  }

  private async takeOver(): Promise<void> {
    const cmd = this.redis;
    const raw = await cmd.get(K.status);
    const shared = raw ? (JSON.parse(raw) as SharedStatus) : null;
    const newest = await cmd.lindex(K.runs, 0);
    this.lastRunId = Math.max(this.lastRunId, shared?.currentRun?.id ?? 0, shared?.lastRun?.id ?? 0, newest ? (JSON.parse(newest) as SyncRunRecord).id : 0);
    if (shared?.state === 'RUNNING' && shared.owner !== this.deps.replicaId && shared.currentRun && !this.deps.runner.busy) {
      const run = shared.currentRun;
      const failed: SyncRunRecord = {
        id: run.id,
        trigger: run.trigger,
        provider: shared.provider,
        startedAt: run.startedAt,
        finishedAt: this.deps.now().toISOString(),
        status: 'FAILED',
        resortsTotal: shared.progress.total,
        resortsUpdated: 0,
        resortsFailed: 0,
        error: 'interrupted: the replica running it stopped (nothing it fetched was published)',
      };
      const idle: SharedStatus = { ...shared, state: 'IDLE', progress: { done: 0, total: 0 }, currentRun: null, lastRun: failed, owner: this.deps.replicaId };
      const marked = await cmd.szgMarkInterrupted(
        K.status,
        K.runs,
        shared.owner,
        run.id,
        JSON.stringify(failed),
        JSON.stringify(idle),
        HISTORY,
        K.statusChannel,
      );
      if (marked) this.deps.logger.warn({ syncRun: run.id, replica: shared.owner }, 'a sync run of a stopped replica marked FAILED');
    }
    if (this.deps.windowMissing()) this.deps.runner.start('SCHEDULED');
  }

  /** This replica's runner changed state: share it (and a finished run) with every replica. */
  private shareStatus(status: SyncStatus): void {
    this.lastRunId = Math.max(this.lastRunId, status.currentRun?.id ?? 0, status.lastRun?.id ?? 0);
    // A run finished while Redis is away may be followed by another before it is back: each is kept.
    if (status.lastRun && status.lastRun.id > this.sharedRunId) this.runsUnshared.set(status.lastRun.id, status.lastRun);
    if (!this.deps.link.up()) {
      this.statusUnshared = true;
      this.events.emit('status', status);
      return;
    }
    this.statusUnshared = false;
    const shared: SharedStatus = { ...status, owner: this.deps.replicaId };
    const json = JSON.stringify(shared);
    const cmd = this.redis;
    const sharedBefore = this.sharedRunId;
    const finished = status.state === 'IDLE' && status.lastRun && status.lastRun.id > sharedBefore ? status.lastRun : null;
    if (finished) this.sharedRunId = finished.id;
    for (const [id, run] of this.runsUnshared) {
      this.runsUnshared.delete(id);
      if (id === finished?.id) continue; // shared with the status below
      this.sharedRunId = Math.max(this.sharedRunId, id);
      cmd.szgPutRun(K.runs, K.status, JSON.stringify(run), id, '', '', '', HISTORY).catch(() => this.runsUnshared.set(id, run));
    }
    const write = finished
      ? cmd.szgFinishRun(K.runs, K.status, JSON.stringify(finished), finished.id, json, this.deps.replicaId, this.leader ? '1' : '0', HISTORY, K.statusChannel)
      : cmd.multi().set(K.status, json).publish(K.statusChannel, json).exec();
    write.catch(() => {
      // Shared again by the next tick that finds Redis up, the finished run with it.
      this.statusUnshared = true;
      if (finished && this.sharedRunId === finished.id) this.sharedRunId = sharedBefore;
      this.events.emit('status', status);
    });
  }

  /**
   * After the runner published a run here, before the run's end is shared: put its window where
   * every replica can take it (a replica told the run SUCCEEDED finds it). Kept for the next tick
   * while Redis cannot take it.
   */
  async shareWindow(runId: number, { from, to }: { from: string; to: string }): Promise<void> {
    this.appliedVersion = Math.max(this.appliedVersion, runId);
    let gz: Buffer;
    try {
      gz = await encodeWindow(await this.deps.windows.read(from, to));
    } catch (err) {
      this.deps.logger.warn({ syncRun: runId, cause: (err as Error).message }, 'could not read the published window to share it');
      return;
    }
    await this.share(runId, gz);
  }

  /** Stores and announces a window; kept for the next tick while Redis cannot take it. */
  private async share(runId: number, gz: Buffer): Promise<void> {
    const cmd = this.redis;
    try {
      const stored = await cmd.szgShareWindow(K.window, K.windowVersion, gz, runId, K.publishedChannel);
      if (!stored) this.deps.logger.warn({ syncRun: runId }, 'a newer window was shared meanwhile; this one is not');
      if (this.unshared?.runId === runId) this.unshared = null;
    } catch (err) {
      if (!this.unshared)
        this.deps.logger.warn({ syncRun: runId, cause: (err as Error).message }, 'could not share the published window yet; trying again every 2 s');
      if (!this.unshared || this.unshared.runId <= runId) this.unshared = { runId, gz };
    }
  }

  /**
   * The subscriber connection is back: what was published while it was away is lost to it, so it
   * applies the newest window and tells subscribers the status now.
   */
  private async resubscribed(): Promise<void> {
    await this.applyLatest();
    this.events.emit('status', await this.status());
  }

  /** Applies the newest window another replica published, if this replica has not yet. */
  private applyLatest(): Promise<void> {
    this.applying = this.applying.then(() => this.applyNewest());
    return this.applying;
  }

  private async applyNewest(): Promise<void> {
    let version: number;
    let buf: Buffer | null;
    try {
      const { cmd } = this.deps.link;
      version = Number((await cmd.get(K.windowVersion)) ?? 0);
      // A version that is no run's id (written by hand) is not a window's: it would number runs NaN.
      if (!Number.isSafeInteger(version) || version <= this.appliedVersion) return;
      buf = await cmd.getBuffer(K.window);
      if (!buf) return;
    } catch (err) {
      this.deps.logger.warn({ cause: (err as Error).message }, 'could not apply the published window yet');
      return;
    }
    try {
      const window = await decodeWindow(buf);
      this.deps.windows.apply(window);
      this.deps.onApplied();
      this.deps.logger.info({ syncRun: version, days: window.days.length }, 'applied the window another replica published');
    } catch (err) {
      // Not a window this replica can apply, now or later: it is passed over (once), and this
      // replica's next run is numbered after it, so that run's window replaces it everywhere.
      this.deps.logger.error({ syncRun: version, cause: (err as Error).message }, 'the published window cannot be applied here: passed over');
    }
    this.appliedVersion = version;
    this.lastRunId = Math.max(this.lastRunId, version);
  }

  private onMessage(channel: string, message: string): void {
    if (channel === K.statusChannel) {
      const shared = JSON.parse(message) as SharedStatus;
      this.lastRunId = Math.max(this.lastRunId, shared.currentRun?.id ?? 0, shared.lastRun?.id ?? 0);
      this.events.emit('status', publicStatus(shared, this.deps.runner.status().nextScheduledRun));
    } else if (channel === K.commandChannel) {
      const command = JSON.parse(message) as { asked?: boolean; run?: SyncTrigger };
      if (!this.leader) return;
      if (command.asked) void this.takeAsked();
      // From a replica of the previous version (a rolling upgrade), which only publishes.
      else void this.stillLeads().then((leads) => leads && this.deps.runner.start(command.run === 'SCHEDULED' ? 'SCHEDULED' : 'MANUAL'));
    } else if (channel === K.publishedChannel) {
      void this.applyLatest();
    }
  }
}

/** The status as the API shows it: without the owner, with this replica's schedule. */
function publicStatus(shared: SharedStatus, nextScheduledRun: string | null): SyncStatus {
  const { owner: _owner, ...status } = shared;
  return { ...status, nextScheduledRun: status.nextScheduledRun ?? nextScheduledRun };
}
